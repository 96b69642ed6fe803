-- A reconnect request learns that its link came back: when the read model first sees the link connected again after
-- the request, whoever told it (a webhook, the sync, a page's or an action's read through the door's observer), the
-- request's reconnected_at is set. Done here rather than in each writer of the links table, so no path can forget it.
-- drizzle-kit does not track functions or triggers, so they live in this hand-written migration.
CREATE FUNCTION "reconnect_requests_mark_reconnected"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "reconnect_requests" SET "reconnected_at" = now()
  WHERE "link_id" = NEW."link_id" AND "state" = 'sent' AND "reconnected_at" IS NULL;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "links_reconnected" AFTER UPDATE OF "state" ON "links"
FOR EACH ROW WHEN (NEW."state" = 'connected' AND OLD."state" IS DISTINCT FROM NEW."state")
EXECUTE FUNCTION "reconnect_requests_mark_reconnected"();--> statement-breakpoint
CREATE TRIGGER "links_reconnected_on_insert" AFTER INSERT ON "links"
FOR EACH ROW WHEN (NEW."state" = 'connected')
EXECUTE FUNCTION "reconnect_requests_mark_reconnected"();
