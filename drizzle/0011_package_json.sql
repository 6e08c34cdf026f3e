CREATE TABLE `dict_epoch` (
	`id` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `package_json` (
	`package_id` text PRIMARY KEY NOT NULL,
	`fp` text NOT NULL,
	`dict` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `dict_epoch` (`id`, `seq`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `package_json_package` AFTER INSERT ON `change_log` WHEN NEW.`entity_type` = 'package'
BEGIN
	DELETE FROM `package_json` WHERE `package_id` = NEW.`entity_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `package_json_group` AFTER INSERT ON `change_log` WHEN NEW.`entity_type` = 'group'
BEGIN
	UPDATE `dict_epoch` SET `seq` = NEW.`seq` WHERE `id` = 1;
	DELETE FROM `package_json` WHERE `package_id` IN (
		SELECT `table_id` FROM `member` WHERE `group_id` = NEW.`entity_id` AND `table_name` = 'package'
		UNION ALL SELECT `id` FROM `package` WHERE `owner_org` = NEW.`entity_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `package_json_vocabulary` AFTER INSERT ON `change_log`
WHEN NEW.`entity_type` = 'vocabulary' OR (NEW.`entity_type` = 'tag' AND NEW.`op` = 'delete')
BEGIN
	UPDATE `dict_epoch` SET `seq` = NEW.`seq` WHERE `id` = 1;
	DELETE FROM `package_json` WHERE `package_id` IN (
		SELECT `package_tag`.`package_id` FROM `package_tag` JOIN `tag` ON `tag`.`id` = `package_tag`.`tag_id`
		WHERE `tag`.`vocabulary_id` = NEW.`entity_id` OR `tag`.`id` = NEW.`entity_id`);
END;
