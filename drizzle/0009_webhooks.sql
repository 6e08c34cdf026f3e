CREATE TABLE `webhook_delivery` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`event` text NOT NULL,
	`seq` integer,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`response_code` integer,
	`latency_ms` integer,
	`error` text,
	`created` text NOT NULL,
	`last_attempt` text,
	`next_attempt` text
);
--> statement-breakpoint
CREATE INDEX `webhook_delivery_webhook_idx` ON `webhook_delivery` (`webhook_id`,`created`);--> statement-breakpoint
CREATE INDEX `webhook_delivery_due_idx` ON `webhook_delivery` (`status`,`next_attempt`);--> statement-breakpoint
CREATE TABLE `webhook` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text,
	`filters` text,
	`secret` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`after_seq` integer DEFAULT 0 NOT NULL,
	`created` text NOT NULL,
	`modified` text NOT NULL,
	`failing_since` text,
	`disabled_reason` text
);
--> statement-breakpoint
CREATE INDEX `webhook_user_idx` ON `webhook` (`user_id`);