CREATE TABLE `search_snapshot` (
	`chunk` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`created` text NOT NULL,
	`data` blob NOT NULL
);
