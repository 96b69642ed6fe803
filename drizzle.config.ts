import { defineConfig } from "drizzle-kit";

// Only `drizzle-kit generate` is used: it needs no database. Migrations are applied by lib/db/migrate.ts at start.
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/schema.ts",
  out: "./lib/db/migrations",
});
