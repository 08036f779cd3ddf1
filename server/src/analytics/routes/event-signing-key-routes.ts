/**
 * An organization's Security Event Token signing key through the operator API (issue 20: addition
 * to spec §4.6): which key signs its SETs, the public keys receivers verify them with (the JWKS,
 * RFC 7517 §5), and a rotation (`EventSigningKeys.rotate`): a new key signs from now on, and the
 * replaced one stays in the JWKS for the retention, so SETs signed before still verify. Only public
 * keys are ever rendered; the audit trail records the new key's `kid`, never key material.
 */
import type { EventSigningKeys } from "scimkit/events";
import { notFound } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { OrganizationStore } from "../analytics-store.js";
import { sendJson } from "../send-json.js";

type EventSigningKeyHandlers = Pick<AnalyticsHandlers, "getOrganizationEventSigningKey" | "rotateOrganizationEventSigningKey">;

const noSuchOrganization = (): Error => notFound("There is no organization with this id among those you may see.");

const noDelivery = (): Error =>
  notFound(
    "Security event delivery is not configured on this service, so there is no signing key: it is the `securityEvents` and `securityEventKeys` options of the analytics router (the host's `securityEvents`).",
  );

/**
 * The members of a private or symmetric JWK (RFC 7518 §6.2.2, §6.3.2, §6.4.1). A key repository
 * of the host's own could store more than the public half as `publicJwk`: they are dropped here,
 * so a mistake there never puts a private key in an answer.
 */
const PRIVATE_MEMBERS: ReadonlySet<string> = new Set(["d", "p", "q", "dp", "dq", "qi", "oth", "k"]);

/** `key` without any private member. */
function publicOnly(key: object): Readonly<Record<string, unknown>> {
  return Object.fromEntries(Object.entries(key).filter(([name]) => !PRIVATE_MEMBERS.has(name)));
}

/** The handlers of the signing-key operations. */
export function eventSigningKeyHandlers(dependencies: AnalyticsDependencies<OrganizationStore>): EventSigningKeyHandlers {
  const { store, securityEvents, securityEventKeys, securityEventJwksUrl } = dependencies;

  /**
   * The keys and the organization `{id}` of the path. Without delivery every organization answers
   * alike, before any lookup (as the receiver operations do), so the answer reveals no organization;
   * and no key is made for an organization the caller may not see.
   */
  async function organizationOf({ params, scope }: AnalyticsCall): Promise<{ keys: EventSigningKeys; orgId: string }> {
    if (securityEvents === undefined || securityEventKeys === undefined) throw noDelivery();
    const organization = await store.getOrganization(scope, params["id"] ?? "");
    if (organization === undefined) throw noSuchOrganization();
    return { keys: securityEventKeys, orgId: organization.id };
  }

  return {
    async getOrganizationEventSigningKey(call) {
      const { keys, orgId } = await organizationOf(call);
      // The key that signs is made on first use, as it would be by the first SET.
      const [signing, jwks] = await Promise.all([keys.signingKey(orgId), keys.jwks(orgId)]);
      sendJson(call.response, 200, {
        kid: signing.kid,
        jwksUrl: securityEventJwksUrl(orgId, call.request),
        jwks: { keys: jwks.keys.map(publicOnly) },
      });
    },

    async rotateOrganizationEventSigningKey(call) {
      const { keys, orgId } = await organizationOf(call);
      const next = await keys.rotate(orgId);
      sendJson(call.response, 200, { kid: next.kid, jwksUrl: securityEventJwksUrl(orgId, call.request) });
    },
  };
}
