import { z } from "zod";

// A person's own view of a table: which columns they hide and how dense the rows are. Shared by the table's menu and
// the action that remembers it (lib/actions/preferences.ts).

export const TABLE_DENSITIES = ["compact", "comfortable"] as const;
export type TableDensity = (typeof TABLE_DENSITIES)[number];

/** The links list's columns, by id (also their sort keys); the link id identifies a row and is always shown. */
export const LINK_LIST_COLUMNS = [
  "link_id",
  "institution_name",
  "state",
  "error_code",
  "provider",
  "products",
  "link_tags",
  "last_refreshed_at",
  "learned_from",
  "created_at",
] as const;
export const LINK_LIST_HIDEABLE = LINK_LIST_COLUMNS.filter((id) => id !== "link_id") as Exclude<
  (typeof LINK_LIST_COLUMNS)[number],
  "link_id"
>[];

export const linksTableViewSchema = z.object({
  table: z.literal("links"),
  hidden: z.array(z.enum(LINK_LIST_HIDEABLE)).max(LINK_LIST_HIDEABLE.length),
  density: z.enum(TABLE_DENSITIES),
});

/** One variant per table that remembers a view. */
export const tableViewSchema = z.discriminatedUnion("table", [linksTableViewSchema]);

export type TableView = z.infer<typeof tableViewSchema>;
export type TableName = TableView["table"];
export type TableViewOf<T extends TableName> = Extract<TableView, { table: T }>;

/** What a person sees before choosing anything. */
export const DEFAULT_TABLE_VIEWS: { [T in TableName]: TableViewOf<T> } = {
  links: { table: "links", hidden: ["created_at"], density: "comfortable" },
};
