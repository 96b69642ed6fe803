CREATE TABLE "import_file_rows" (
	"job_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"line" integer NOT NULL,
	"identity_key" text,
	"customer_user_id" text,
	"institution_id" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"planned" text NOT NULL,
	"link_id" text,
	"reason" text,
	CONSTRAINT "import_file_rows_job_id_position_pk" PRIMARY KEY("job_id","position"),
	CONSTRAINT "import_file_rows_planned_check" CHECK ("import_file_rows"."planned" in ('planned', 'duplicate', 'already_imported', 'invalid'))
);
--> statement-breakpoint
CREATE TABLE "imported_links" (
	"identity_key" text PRIMARY KEY NOT NULL,
	"tag" text NOT NULL,
	"customer_user_id" text NOT NULL,
	"institution_id" text,
	"job_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"line" integer DEFAULT 0 NOT NULL,
	"link_id" text,
	"state" text DEFAULT 'reserved' NOT NULL,
	"imported_state" text,
	"imported_error_code" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "imported_links_state_check" CHECK ("imported_links"."state" in ('reserved', 'created', 'released', 'deleted'))
);
--> statement-breakpoint
ALTER TABLE "import_file_rows" ADD CONSTRAINT "import_file_rows_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "imported_links_job_position_idx" ON "imported_links" USING btree ("job_id","position");--> statement-breakpoint
CREATE INDEX "imported_links_link_id_idx" ON "imported_links" USING btree ("link_id");--> statement-breakpoint
-- An import's reservation of an identity is released when the item that would create the link ends without creating
-- it (failed, cancelled, skipped): another import may then take the identity. Done here rather than in each code path
-- that settles or cancels items (the engine, job controls), so no path can forget it.
CREATE FUNCTION imported_links_release() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state IN ('failed', 'cancelled', 'skipped') AND NEW.input->>'step' = 'link' THEN
    UPDATE imported_links SET state = 'released', updated_at = now()
    WHERE job_id = NEW.job_id AND position = (NEW.input->>'position')::int AND state = 'reserved' AND link_id IS NULL;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER job_items_release_imported_link AFTER UPDATE OF state ON job_items
FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION imported_links_release();
