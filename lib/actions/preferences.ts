"use server";

import { getDb } from "../db/client";
import { writeTableView } from "../preferences/table-views";
import { tableViewSchema } from "../schemas/preferences";
import { actionClient } from "./safe-action";

/** Remembers the signed-in person's columns and density for a table; nobody else's, whatever the input says. */
export const saveTableView = actionClient
  .metadata({ action: "preferences.table_view", permission: "read" })
  .inputSchema(tableViewSchema)
  .action(async ({ parsedInput, ctx }) => {
    await writeTableView((await getDb()).db, ctx.staff.id, parsedInput);
    return { saved: true as const };
  });
