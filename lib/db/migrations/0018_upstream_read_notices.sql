CREATE TABLE "upstream_read_notices" (
	"kind" text NOT NULL,
	"field" text NOT NULL,
	"value" text NOT NULL,
	"endpoint" text NOT NULL,
	"first_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"answers" integer DEFAULT 1 NOT NULL,
	"example_item_id" text,
	"example_correlation_id" text,
	CONSTRAINT "upstream_read_notices_kind_field_value_pk" PRIMARY KEY("kind","field","value"),
	CONSTRAINT "upstream_read_notices_kind_check" CHECK ("upstream_read_notices"."kind" in ('unknown_value', 'unreadable'))
);
