import type { LinkListItem, LinkProductStatus } from "@/lib/links/query";

// What the links table needs of a row, and nothing more: the rows cross to the browser in the page's RSC payload
// (inline in the HTML as well), so fields the table does not show (read times, deprecated fields, the product error
// codes the filters use) and a product's empty fields stay on the server.

/** A product's status with its empty fields left out. */
export type LinkTableProduct = Pick<LinkProductStatus, "product"> & Partial<Omit<LinkProductStatus, "product">>;

export type LinkTableRow = Pick<
  LinkListItem,
  "linkId" | "createdAt" | "institutionId" | "institutionName" | "institutionAvatar" | "state" | "errorCode" | "provider" | "linkTags" | "lastRefreshedAt"
> & { products: LinkTableProduct[] };

export function linkTableRow(item: LinkListItem): LinkTableRow {
  const { linkId, createdAt, institutionId, institutionName, institutionAvatar, state, errorCode, provider, linkTags, lastRefreshedAt } = item;
  return {
    linkId,
    createdAt,
    institutionId,
    institutionName,
    institutionAvatar,
    state,
    errorCode,
    provider,
    linkTags,
    lastRefreshedAt,
    products: item.products.map((p) => {
      const product: LinkTableProduct = { product: p.product };
      if (p.refreshedAt) product.refreshedAt = p.refreshedAt;
      if (p.errorCode) product.errorCode = p.errorCode;
      if (p.errorMessage) product.errorMessage = p.errorMessage;
      if (p.unavailable) product.unavailable = p.unavailable;
      return product;
    }),
  };
}
