/**
 * SCIM tokens as a managed resource (issue 14, addition to spec §4.6; spec §5): list, issue,
 * get, rotate (with an optional grace period) and revoke the tokens of an organization, and
 * rotate the operator key. A secret appears only in the response that creates it, with
 * `Cache-Control: no-store`; lists and the audit trail carry ids and prefixes, never a secret or
 * its digest. Static tokens (the host's `SCIMKIT_ORGS`) are listed but changed only where they
 * are configured.
 */
import { conflict, invalidRequest, notFound, notImplemented, unauthorized } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { AdminUserStore, Organization, OrganizationStore } from "../analytics-store.js";
import { newApiKey } from "../api-keys.js";
import { issueWhileExists } from "../issue-while-exists.js";
import { renderIssuedToken, renderStaticToken, type RenderedScimToken } from "../render-scim-token.js";
import { sendJson, sendNoContent, sendSecret } from "../send-json.js";

type TokenHandlers = Pick<
  AnalyticsHandlers,
  | "listOrganizationTokens"
  | "issueOrganizationToken"
  | "getOrganizationToken"
  | "rotateOrganizationToken"
  | "confirmOrganizationTokenRotation"
  | "revokeOrganizationToken"
  | "rotateOperatorKey"
>;

const noSuchOrganization = (): Error => notFound("There is no organization with this id among those you may see.");
const noSuchToken = (): Error => notFound("The organization has no token with this id.");

const staticTokenConflict = (): Error =>
  conflict(
    "This token is static: it comes from the host's environment (SCIMKIT_ORGS) and can be changed only there, taking effect when the service restarts. To replace it without a restart, issue a token here, move the identity provider to it, then remove the static one from the environment.",
  );

/** The `expiresAt` of a body, refused (400) unless it is in the future: an expired token is of no use. */
function futureExpiry(value: unknown, now: Date): string | undefined {
  if (typeof value !== "string") return undefined;
  if (!(Date.parse(value) > now.getTime())) throw invalidRequest([{ field: "/expiresAt", message: "must be in the future" }]);
  return value;
}

/** The handlers of the token operations. */
export function tokenHandlers(dependencies: AnalyticsDependencies<AdminUserStore & OrganizationStore>): TokenHandlers {
  const { store, scimTokens, staticTokens, now } = dependencies;

  /** The organization `{id}` of the path, or 404 when the caller may not see it (as for any organization). */
  async function visibleOrganization({ params, scope }: AnalyticsCall): Promise<Organization> {
    const organization = await store.getOrganization(scope, params["id"] ?? "");
    if (organization === undefined) throw noSuchOrganization();
    return organization;
  }

  async function organizationOf(call: AnalyticsCall): Promise<string> {
    return (await visibleOrganization(call)).id;
  }

  function staticTokensOf(orgId: string): readonly RenderedScimToken[] {
    return staticTokens(orgId).map(renderStaticToken);
  }

  /** 409 when `tokenId` names one of the organization's static tokens. */
  function refuseStatic(orgId: string, tokenId: string): void {
    if (staticTokensOf(orgId).some((token) => token["id"] === tokenId)) throw staticTokenConflict();
  }

  return {
    async listOrganizationTokens(call) {
      const orgId = await organizationOf(call);
      const issued = await scimTokens.list(orgId);
      sendJson(call.response, 200, { data: [...staticTokensOf(orgId), ...issued.map(renderIssuedToken)] });
    },

    async issueOrganizationToken(call) {
      const organization = await visibleOrganization(call);
      const orgId = organization.id;
      const body = call.body as { readonly label?: string; readonly expiresAt?: string };
      const expiresAt = futureExpiry(body.expiresAt, now());
      const issued = await issueWhileExists(dependencies, organization, {
        ...(body.label === undefined ? {} : { label: body.label.trim() }),
        ...(expiresAt === undefined ? {} : { expiresAt }),
      });
      // Deleted between the read above and the token's write: as if it had been before.
      if (issued === undefined) throw noSuchOrganization();
      call.response.setHeader(
        "Location",
        `${call.baseUrl}/organizations/${encodeURIComponent(orgId)}/tokens/${encodeURIComponent(issued.record.id)}`,
      );
      sendSecret(call.response, 201, { token: renderIssuedToken(issued.record), secret: issued.token });
    },

    async getOrganizationToken(call) {
      const orgId = await organizationOf(call);
      const tokenId = call.params["tokenId"] ?? "";
      const found =
        staticTokensOf(orgId).find((token) => token["id"] === tokenId) ??
        (await scimTokens.list(orgId)).map(renderIssuedToken).find((token) => token["id"] === tokenId);
      if (found === undefined) throw noSuchToken();
      sendJson(call.response, 200, found);
    },

    async rotateOrganizationToken(call) {
      const orgId = await organizationOf(call);
      const tokenId = call.params["tokenId"] ?? "";
      refuseStatic(orgId, tokenId);
      const body = call.body as { readonly graceSeconds?: number; readonly expiresAt?: string };
      const expiresAt = futureExpiry(body.expiresAt, now());
      const rotated = await scimTokens.rotate(orgId, tokenId, {
        ...(body.graceSeconds === undefined ? {} : { graceSeconds: body.graceSeconds }),
        ...(expiresAt === undefined ? {} : { expiresAt }),
      });
      if (rotated === undefined) throw noSuchToken();
      sendSecret(call.response, 200, { token: renderIssuedToken(rotated.record), secret: rotated.token });
    },

    async confirmOrganizationTokenRotation(call) {
      const orgId = await organizationOf(call);
      const tokenId = call.params["tokenId"] ?? "";
      refuseStatic(orgId, tokenId);
      if (scimTokens.endRotationGrace === undefined)
        throw notImplemented("This host's token store cannot end a rotation's grace period early.");
      const confirmed = await scimTokens.endRotationGrace(orgId, tokenId);
      if (confirmed === undefined) throw noSuchToken();
      sendJson(call.response, 200, renderIssuedToken(confirmed));
    },

    async revokeOrganizationToken(call) {
      const orgId = await organizationOf(call);
      const tokenId = call.params["tokenId"] ?? "";
      refuseStatic(orgId, tokenId);
      if (!(await scimTokens.revoke(orgId, tokenId))) throw noSuchToken();
      sendNoContent(call.response);
    },

    async rotateOperatorKey({ response, caller }) {
      // The operation's access admits only the operator key; this narrows the type.
      if (caller?.kind !== "operator") throw unauthorized();
      const issued = newApiKey({ kind: "operator" }, now().toISOString());
      // Replaced in one step: the key that asked fails from the next request on. False when it
      // was replaced or removed meanwhile, by a concurrent rotation: it is no longer a key.
      if (!(await store.replaceApiKey(caller.keyId, issued.record))) throw unauthorized();
      sendSecret(response, 200, { apiKey: issued.key });
    },
  };
}
