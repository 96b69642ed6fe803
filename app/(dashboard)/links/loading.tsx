import { LinksPageSkeleton } from "@/components/links/list/links-page-skeleton";

export default function Loading() {
  return <LinksPageSkeleton />;
}
