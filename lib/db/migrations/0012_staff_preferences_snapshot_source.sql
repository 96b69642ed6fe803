CREATE TABLE "staff_preferences" (
	"staff_id" uuid NOT NULL,
	"name" text NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "staff_preferences_staff_id_name_pk" PRIMARY KEY("staff_id","name")
);
--> statement-breakpoint
ALTER TABLE "link_snapshots" ADD COLUMN "source" text DEFAULT 'sync' NOT NULL;--> statement-breakpoint
ALTER TABLE "staff_preferences" ADD CONSTRAINT "staff_preferences_staff_id_staff_id_fk" FOREIGN KEY ("staff_id") REFERENCES "public"."staff"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_snapshots" ADD CONSTRAINT "link_snapshots_source_check" CHECK ("link_snapshots"."source" in ('sync', 'start', 'demo'));