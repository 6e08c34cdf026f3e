ALTER TABLE `job` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `job` ADD `lease` text;--> statement-breakpoint
ALTER TABLE `job` ADD `lease_until` text;--> statement-breakpoint
ALTER TABLE `job` ADD `result` text;