CREATE TABLE `harvest_gather_error` (
	`id` text PRIMARY KEY NOT NULL,
	`harvest_job_id` text NOT NULL,
	`message` text NOT NULL,
	`created` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `harvest_gather_error_job_idx` ON `harvest_gather_error` (`harvest_job_id`);--> statement-breakpoint
CREATE TABLE `harvest_job` (
	`id` text PRIMARY KEY NOT NULL,
	`source_id` text NOT NULL,
	`created` text NOT NULL,
	`gather_started` text,
	`gather_finished` text,
	`finished` text,
	`status` text DEFAULT 'New' NOT NULL,
	`queue_job_id` text,
	`cursor` text
);
--> statement-breakpoint
CREATE INDEX `harvest_job_source_idx` ON `harvest_job` (`source_id`,`created`);--> statement-breakpoint
CREATE UNIQUE INDEX `harvest_job_open_idx` ON `harvest_job` (`source_id`) WHERE status IN ('New', 'Running');--> statement-breakpoint
CREATE TABLE `harvest_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`content` text NOT NULL,
	`level` text NOT NULL,
	`created` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `harvest_log_created_idx` ON `harvest_log` (`created`);--> statement-breakpoint
CREATE TABLE `harvest_object_error` (
	`id` text PRIMARY KEY NOT NULL,
	`harvest_object_id` text NOT NULL,
	`message` text NOT NULL,
	`stage` text NOT NULL,
	`line` integer,
	`created` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `harvest_object_error_object_idx` ON `harvest_object_error` (`harvest_object_id`);--> statement-breakpoint
CREATE TABLE `harvest_object` (
	`id` text PRIMARY KEY NOT NULL,
	`guid` text DEFAULT '' NOT NULL,
	`current` integer DEFAULT false NOT NULL,
	`gathered` text NOT NULL,
	`fetch_started` text,
	`content` text,
	`fetch_finished` text,
	`import_started` text,
	`import_finished` text,
	`state` text DEFAULT 'WAITING' NOT NULL,
	`metadata_modified_date` text,
	`retry_times` integer DEFAULT 0 NOT NULL,
	`harvest_job_id` text NOT NULL,
	`harvest_source_id` text NOT NULL,
	`package_id` text,
	`report_status` text,
	`content_hash` text,
	`extras` text DEFAULT '{}' NOT NULL,
	`seq` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `harvest_object_job_idx` ON `harvest_object` (`harvest_job_id`,`state`,`seq`);--> statement-breakpoint
CREATE INDEX `harvest_object_source_guid_idx` ON `harvest_object` (`harvest_source_id`,`guid`,`current`);--> statement-breakpoint
CREATE INDEX `harvest_object_package_idx` ON `harvest_object` (`package_id`);