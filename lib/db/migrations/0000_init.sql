CREATE TABLE "audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"actor_id" uuid,
	"actor_email" text,
	"actor_role" text,
	"action" text NOT NULL,
	"target_type" text,
	"target_id" text,
	"link_id" text,
	"input" jsonb,
	"before" jsonb,
	"after" jsonb,
	"outcome" text NOT NULL,
	"upstream_status" integer,
	"upstream_error_code" text,
	"correlation_id" uuid NOT NULL,
	"ip" text,
	CONSTRAINT "audit_log_outcome_check" CHECK ("audit_log"."outcome" in ('ok', 'refused', 'invalid', 'upstream_error', 'error'))
);
--> statement-breakpoint
CREATE TABLE "sign_in_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sign_in_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"subject" text NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"succeeded" boolean NOT NULL
);
--> statement-breakpoint
CREATE TABLE "staff" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"role" text NOT NULL,
	"password_hash" text,
	"auth_source" text DEFAULT 'password' NOT NULL,
	"disabled_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "staff_email_unique" UNIQUE("email"),
	CONSTRAINT "staff_role_check" CHECK ("staff"."role" in ('viewer', 'support', 'ops', 'admin')),
	CONSTRAINT "staff_auth_source_check" CHECK ("staff"."auth_source" in ('password', 'oidc')),
	CONSTRAINT "staff_email_lower_case_check" CHECK ("staff"."email" = lower("staff"."email"))
);
--> statement-breakpoint
CREATE INDEX "audit_log_at_id_idx" ON "audit_log" USING btree ("at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "audit_log_actor_email_at_id_idx" ON "audit_log" USING btree ("actor_email","at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "audit_log_action_at_id_idx" ON "audit_log" USING btree ("action","at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "audit_log_link_id_at_id_idx" ON "audit_log" USING btree ("link_id","at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "audit_log_outcome_at_id_idx" ON "audit_log" USING btree ("outcome","at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "sign_in_attempts_subject_at_idx" ON "sign_in_attempts" USING btree ("subject","at" DESC NULLS FIRST);