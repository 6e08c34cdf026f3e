CREATE TABLE `activity` (
	`id` text PRIMARY KEY NOT NULL,
	`timestamp` text NOT NULL,
	`user_id` text,
	`object_id` text,
	`activity_type` text NOT NULL,
	`data` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `activity_object_idx` ON `activity` (`object_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `activity_user_idx` ON `activity` (`user_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `activity_timestamp_idx` ON `activity` (`timestamp`);--> statement-breakpoint
CREATE TABLE `change_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`op` text NOT NULL,
	`at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%f', 'now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `change_log_entity_idx` ON `change_log` (`entity_type`,`entity_id`);--> statement-breakpoint
CREATE TABLE `dashboard` (
	`user_id` text PRIMARY KEY NOT NULL,
	`activity_stream_last_viewed` text NOT NULL,
	`email_last_sent` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `follower` (
	`follower_id` text NOT NULL,
	`object_id` text NOT NULL,
	`object_type` text NOT NULL,
	`datetime` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `follower_pk` ON `follower` (`follower_id`,`object_id`,`object_type`);--> statement-breakpoint
CREATE INDEX `follower_object_idx` ON `follower` (`object_id`);--> statement-breakpoint
CREATE TABLE `group_extra` (
	`id` text PRIMARY KEY NOT NULL,
	`group_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'active' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `group_extra_group_idx` ON `group_extra` (`group_id`);--> statement-breakpoint
CREATE TABLE `group` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`image_url` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'group' NOT NULL,
	`is_organization` integer DEFAULT false NOT NULL,
	`approval_status` text DEFAULT 'approved' NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`created` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `group_name_idx` ON `group` (`name`);--> statement-breakpoint
CREATE TABLE `job` (
	`id` text PRIMARY KEY NOT NULL,
	`queue` text DEFAULT 'default' NOT NULL,
	`title` text,
	`kind` text NOT NULL,
	`payload` text DEFAULT '{}' NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`created` text NOT NULL,
	`started` text,
	`ended` text,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `job_queue_idx` ON `job` (`status`,`queue`,`created`);--> statement-breakpoint
CREATE TABLE `member` (
	`id` text PRIMARY KEY NOT NULL,
	`group_id` text NOT NULL,
	`table_id` text NOT NULL,
	`table_name` text NOT NULL,
	`capacity` text NOT NULL,
	`state` text DEFAULT 'active' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `member_group_idx` ON `member` (`group_id`,`table_name`);--> statement-breakpoint
CREATE INDEX `member_table_idx` ON `member` (`table_id`,`table_name`);--> statement-breakpoint
CREATE TABLE `package_extra` (
	`id` text PRIMARY KEY NOT NULL,
	`package_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'active' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `package_extra_package_idx` ON `package_extra` (`package_id`);--> statement-breakpoint
CREATE TABLE `package_relationship` (
	`id` text PRIMARY KEY NOT NULL,
	`subject_package_id` text NOT NULL,
	`object_package_id` text NOT NULL,
	`type` text NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'active' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `package_rel_subject_idx` ON `package_relationship` (`subject_package_id`);--> statement-breakpoint
CREATE INDEX `package_rel_object_idx` ON `package_relationship` (`object_package_id`);--> statement-breakpoint
CREATE TABLE `package_tag` (
	`id` text PRIMARY KEY NOT NULL,
	`package_id` text NOT NULL,
	`tag_id` text NOT NULL,
	`state` text DEFAULT 'active' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `package_tag_package_idx` ON `package_tag` (`package_id`);--> statement-breakpoint
CREATE INDEX `package_tag_tag_idx` ON `package_tag` (`tag_id`);--> statement-breakpoint
CREATE TABLE `package` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`title` text,
	`type` text DEFAULT 'dataset' NOT NULL,
	`owner_org` text,
	`private` integer DEFAULT false NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`author` text,
	`author_email` text,
	`maintainer` text,
	`maintainer_email` text,
	`license_id` text,
	`notes` text,
	`url` text,
	`version` text,
	`creator_user_id` text,
	`metadata_created` text NOT NULL,
	`metadata_modified` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `package_name_idx` ON `package` (`name`);--> statement-breakpoint
CREATE INDEX `package_owner_org_idx` ON `package` (`owner_org`);--> statement-breakpoint
CREATE INDEX `package_modified_idx` ON `package` (`metadata_modified`);--> statement-breakpoint
CREATE INDEX `package_creator_idx` ON `package` (`creator_user_id`);--> statement-breakpoint
CREATE TABLE `rating` (
	`id` text PRIMARY KEY NOT NULL,
	`package_id` text NOT NULL,
	`user_id` text NOT NULL,
	`rating` integer NOT NULL,
	`created` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rating_user_package_idx` ON `rating` (`package_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `resource_view` (
	`id` text PRIMARY KEY NOT NULL,
	`resource_id` text NOT NULL,
	`title` text,
	`description` text,
	`view_type` text NOT NULL,
	`order` integer DEFAULT 0 NOT NULL,
	`config` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `resource_view_resource_idx` ON `resource_view` (`resource_id`);--> statement-breakpoint
CREATE TABLE `resource` (
	`id` text PRIMARY KEY NOT NULL,
	`package_id` text NOT NULL,
	`url` text DEFAULT '' NOT NULL,
	`format` text DEFAULT '' NOT NULL,
	`description` text,
	`name` text,
	`hash` text DEFAULT '' NOT NULL,
	`resource_type` text,
	`mimetype` text,
	`mimetype_inner` text,
	`cache_url` text,
	`size` integer,
	`created` text NOT NULL,
	`last_modified` text,
	`cache_last_updated` text,
	`metadata_modified` text NOT NULL,
	`url_type` text,
	`position` integer DEFAULT 0 NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`datastore_active` integer DEFAULT false NOT NULL,
	`extras` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `resource_package_idx` ON `resource` (`package_id`,`position`);--> statement-breakpoint
CREATE TABLE `system_info` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text
);
--> statement-breakpoint
CREATE TABLE `tag` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`vocabulary_id` text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tag_name_vocab_idx` ON `tag` (`name`,`vocabulary_id`);--> statement-breakpoint
CREATE TABLE `task_status` (
	`id` text PRIMARY KEY NOT NULL,
	`entity_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`task_type` text NOT NULL,
	`key` text NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`state` text,
	`error` text,
	`last_updated` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `task_status_key_idx` ON `task_status` (`entity_id`,`task_type`,`key`);--> statement-breakpoint
CREATE TABLE `term_translation` (
	`term` text NOT NULL,
	`term_translation` text NOT NULL,
	`lang_code` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `term_translation_idx` ON `term_translation` (`term`,`lang_code`);--> statement-breakpoint
CREATE TABLE `user` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`fullname` text,
	`email` text,
	`password_hash` text,
	`apikey` text,
	`sysadmin` integer DEFAULT false NOT NULL,
	`state` text DEFAULT 'active' NOT NULL,
	`about` text,
	`image_url` text,
	`created` text NOT NULL,
	`activity_streams_email_notifications` integer DEFAULT false NOT NULL,
	`plugin_extras` text,
	`reset_key` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_name_idx` ON `user` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `user_apikey_idx` ON `user` (`apikey`);--> statement-breakpoint
CREATE TABLE `vocabulary` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vocabulary_name_idx` ON `vocabulary` (`name`);