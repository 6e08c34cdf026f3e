CREATE TABLE `usage_daily` (
	`object_id` text NOT NULL,
	`kind` text NOT NULL,
	`day` text NOT NULL,
	`package_id` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`object_id`, `kind`, `day`)
);
--> statement-breakpoint
CREATE INDEX `usage_daily_package_idx` ON `usage_daily` (`package_id`,`day`);--> statement-breakpoint
CREATE INDEX `usage_daily_day_idx` ON `usage_daily` (`day`);--> statement-breakpoint
CREATE TABLE `usage_total` (
	`object_id` text PRIMARY KEY NOT NULL,
	`package_id` text NOT NULL,
	`is_resource` integer NOT NULL,
	`page` integer DEFAULT 0 NOT NULL,
	`api` integer DEFAULT 0 NOT NULL,
	`download` integer DEFAULT 0 NOT NULL,
	`total` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `usage_total_package_idx` ON `usage_total` (`package_id`);