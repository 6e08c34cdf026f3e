DROP INDEX `package_owner_org_idx`;--> statement-breakpoint
DROP INDEX `package_creator_idx`;--> statement-breakpoint
CREATE INDEX `package_owner_state_idx` ON `package` (`owner_org`,`state`,`private`);--> statement-breakpoint
CREATE INDEX `package_creator_state_idx` ON `package` (`creator_user_id`,`state`,`private`);