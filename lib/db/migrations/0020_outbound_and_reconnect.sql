CREATE TABLE "link_customers" (
	"link_id" text PRIMARY KEY NOT NULL,
	"customer_user_id" text NOT NULL,
	"learned_from" text NOT NULL,
	"learned_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "link_customers_learned_from_check" CHECK ("link_customers"."learned_from" in ('customer_lookup', 'link_session'))
);
--> statement-breakpoint
CREATE TABLE "outbound_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outbound_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"delivery_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"latency_ms" integer NOT NULL,
	"status" integer,
	"outcome" text NOT NULL,
	"detail" text NOT NULL,
	"owner" text,
	CONSTRAINT "outbound_attempts_outcome_check" CHECK ("outbound_attempts"."outcome" in ('delivered', 'retry', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "outbound_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"message_id" text NOT NULL,
	"channel" text NOT NULL,
	"type" text NOT NULL,
	"recipient" text,
	"body" jsonb NOT NULL,
	"withheld" text[] DEFAULT '{}'::text[] NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp (3) with time zone,
	"last_outcome" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outbound_deliveries_channel_check" CHECK ("outbound_deliveries"."channel" in ('webhook', 'email')),
	CONSTRAINT "outbound_deliveries_state_check" CHECK ("outbound_deliveries"."state" in ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "reconnect_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_key" uuid NOT NULL,
	"link_id" text NOT NULL,
	"customer_user_id" text NOT NULL,
	"customer_source" text NOT NULL,
	"institution_id" text,
	"institution_name" text,
	"error_code" text,
	"requested_by" uuid NOT NULL,
	"requested_by_email" text NOT NULL,
	"requested_by_role" text NOT NULL,
	"requested_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"state" text DEFAULT 'creating' NOT NULL,
	"reason" text,
	"message_id" text,
	"session_token_hint" text,
	"kept_webhook" text,
	"kept_tags" text[],
	"correlation_id" uuid NOT NULL,
	"reconnected_at" timestamp (3) with time zone,
	CONSTRAINT "reconnect_requests_request_key_unique" UNIQUE("request_key"),
	CONSTRAINT "reconnect_requests_message_id_unique" UNIQUE("message_id"),
	CONSTRAINT "reconnect_requests_state_check" CHECK ("reconnect_requests"."state" in ('creating', 'sent', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "outbound_attempts" ADD CONSTRAINT "outbound_attempts_delivery_id_outbound_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."outbound_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_attempts_delivery_attempt_idx" ON "outbound_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "outbound_deliveries_message_channel_idx" ON "outbound_deliveries" USING btree ("message_id","channel");--> statement-breakpoint
CREATE INDEX "outbound_deliveries_due_idx" ON "outbound_deliveries" USING btree ("next_attempt_at") WHERE "outbound_deliveries"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "reconnect_requests_link_idx" ON "reconnect_requests" USING btree ("link_id","requested_at" DESC NULLS FIRST);