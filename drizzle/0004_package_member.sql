CREATE TABLE `package_member` (
	`package_id` text NOT NULL,
	`user_id` text NOT NULL,
	`capacity` text NOT NULL,
	`modified` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `package_member_pk` ON `package_member` (`package_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `package_member_user_idx` ON `package_member` (`user_id`);