CREATE TABLE `login_failure` (
	`key` text PRIMARY KEY NOT NULL,
	`n` integer NOT NULL,
	`since` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failure_since_idx` ON `login_failure` (`since`);