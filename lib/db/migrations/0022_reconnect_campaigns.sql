ALTER TABLE "reconnect_requests" ADD COLUMN "job_id" uuid;--> statement-breakpoint
CREATE INDEX "reconnect_requests_job_idx" ON "reconnect_requests" USING btree ("job_id");