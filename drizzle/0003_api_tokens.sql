CREATE TABLE `api_token` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	`last_access` text,
	`expires_at` text,
	`plugin_extras` text
);
--> statement-breakpoint
CREATE INDEX `api_token_user_idx` ON `api_token` (`user_id`);--> statement-breakpoint
CREATE TABLE `site_secret` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
