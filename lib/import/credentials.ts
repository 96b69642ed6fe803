// What the upstream does with provider_data. The spec: "Without credentials in provider_data the link is created
// disconnected with error_code auth_expired ... With the credentials a provider needs (a user identifier for some
// providers) the link is created active". The spec does not show provider_data's shape; the rule Linkdesk (and the
// sandbox, which imports this) applies: credentials are present when at least one value is a non-empty string
// (e.g. `{"user_id": "u-123"}`).

export function hasProviderCredentials(providerData: unknown): boolean {
  if (providerData === null || typeof providerData !== "object" || Array.isArray(providerData)) return false;
  return Object.values(providerData).some((value) => typeof value === "string" && value.trim() !== "");
}
