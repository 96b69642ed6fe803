import { WebhooksPageSkeleton } from "@/components/webhooks/webhooks-page-skeleton";

export default function Loading() {
  return <WebhooksPageSkeleton />;
}
