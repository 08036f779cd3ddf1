/**
 * Setup links (issue 31): the operator or an organization's admin makes a one-time link; the
 * customer's IT admin opens it — the code exchanged once for a setup session of that organization
 * — chooses the identity provider (its compatibility profile follows), sees the token once and the
 * first requests arriving. Spec §5.2–5.4 stay true: the operator may still issue tokens; this
 * takes the operator out of the loop when the customer wants it.
 */
import { hashToken, MAX_ROTATION_GRACE_SECONDS, requestOrigin } from "scimkit";
import { conflict, notFound, notImplemented, setupLinkGone } from "../analytics-problem.js";
import type { AnalyticsCall, AnalyticsHandlers } from "../analytics-call.js";
import type { AnalyticsDependencies } from "../analytics-dependencies.js";
import type { SetupIdentityProvider, SetupLink } from "../setup-link-store.js";
import { organizationHealth } from "../organization-health.js";
import { DEFAULT_SETUP_LINK_MINUTES, newSetupCode, newSetupSession } from "../setup-links.js";
import { sendJson, sendSecret } from "../send-json.js";
import type { CompatibilityProfileName } from "scimkit/core";
import type { ReadableRequestLog } from "scimkit/request-log";
import { v7 } from "uuid";

type SetupLinkHandlers = Pick<
  AnalyticsHandlers,
  | "createSetupLink"
  | "listSetupLinks"
  | "revokeSetupLink"
  | "openSetup"
  | "getSetup"
  | "chooseSetupIdentityProvider"
  | "revealSetupToken"
  | "rotateSetupToken"
  | "confirmSetupTokenRotation"
  | "listSetupRequests"
  | "getSetupHealth"
>;

const noSuchOrganization = (): Error => notFound("There is no organization with this id among those you may see.");

/** Why a link opens nothing, said to whoever holds it. */
const GONE: Readonly<Record<"expired" | "used" | "revoked", string>> = {
  used: "This setup link was opened already: a link opens once. Ask whoever sent it for a new one.",
  expired: "This setup link has expired. Ask whoever sent it for a new one.",
  revoked: "This setup link was revoked. Ask whoever sent it for a new one.",
};

/** The compatibility profile an identity provider's requests are served with. */
const PROFILE_OF: Readonly<Record<SetupIdentityProvider, CompatibilityProfileName>> = {
  entra: "entra",
  okta: "okta",
  google: "google",
  onelogin: "onelogin",
  jumpcloud: "jumpcloud",
  ping: "ping",
  other: "generic",
};

/** The setup session's link: the operation's access admits only a setup caller. */
function linkOf(call: AnalyticsCall): SetupLink {
  if (call.caller?.kind !== "setup") throw notFound("There is no setup here.");
  return call.caller.link;
}

/** The handlers of the setup-link operations; `log` is the router's `requestLog`. */
export function setupLinkHandlers(dependencies: AnalyticsDependencies, log: ReadableRequestLog | undefined): SetupLinkHandlers {
  const { store, now } = dependencies;
  const organizationIn = async (call: AnalyticsCall): Promise<string> => {
    const id = call.params["id"] ?? "";
    if ((await store.getOrganization(call.scope, id)) === undefined) throw noSuchOrganization();
    return id;
  };
  /** The link's token as it is now: what tells which secret the identity provider uses. */
  const tokenOf = async (link: SetupLink) => {
    if (link.tokenId === undefined) return {};
    const record = (await dependencies.scimTokens.list(link.orgId)).find((token) => token.id === link.tokenId);
    if (record === undefined) return {};
    return {
      token: {
        id: record.id,
        ...(record.lastUsedAt === undefined ? {} : { lastUsedAt: record.lastUsedAt }),
        ...(record.rotatedAt === undefined ? {} : { rotatedAt: record.rotatedAt }),
        ...(record.previousSecretValidUntil === undefined ? {} : { previousSecretValidUntil: record.previousSecretValidUntil }),
      },
    };
  };
  /** The link's token id, or 409: rotation needs the token its page revealed. */
  const revealedToken = (link: SetupLink): string => {
    if (link.tokenId === undefined) throw conflict("This setup link's page revealed no token yet: reveal it first.");
    return link.tokenId;
  };
  const setupOf = async (call: AnalyticsCall, link: SetupLink) => {
    const organization = await store.getOrganization({ all: true }, link.orgId);
    if (organization === undefined) throw notFound("This setup link's organization is gone.");
    return {
      organization: {
        id: organization.id,
        name: organization.name,
        ...(organization.compatibility === undefined ? {} : { compatibility: organization.compatibility }),
      },
      scimBaseUrl: dependencies.scimBaseUrl(organization.id, call.request),
      ...(link.identityProvider === undefined ? {} : { identityProvider: link.identityProvider }),
      tokenRevealed: link.tokenId !== undefined,
      ...(link.tokenId === undefined ? {} : { tokenId: link.tokenId }),
      ...(await tokenOf(link)),
      expiresAt: link.expiresAt,
    };
  };
  return {
    async createSetupLink(call) {
      const orgId = await organizationIn(call);
      const body = call.body as { readonly identityProvider?: SetupIdentityProvider; readonly expiresInMinutes?: number };
      const at = now();
      const code = newSetupCode();
      const link: SetupLink = {
        id: v7(),
        orgId,
        ...(body.identityProvider === undefined ? {} : { identityProvider: body.identityProvider }),
        ...(call.caller === undefined ? {} : { createdBy: call.caller.keyId }),
        createdAt: at.toISOString(),
        expiresAt: new Date(at.getTime() + (body.expiresInMinutes ?? DEFAULT_SETUP_LINK_MINUTES) * 60_000).toISOString(),
      };
      await store.createSetupLink(link, hashToken(code));
      // After `#`: a fragment is never sent to a server, so the code stays out of logs and Referer headers.
      const url = `${requestOrigin(call.request)}/console/setup#code=${encodeURIComponent(code)}`;
      sendSecret(call.response, 201, { link, url });
    },
    async listSetupLinks(call) {
      sendJson(call.response, 200, { data: await store.listSetupLinks(await organizationIn(call)) });
    },
    async revokeSetupLink(call) {
      const orgId = await organizationIn(call);
      const revoked = await store.revokeSetupLink(orgId, call.params["linkId"] ?? "", now().toISOString());
      if (revoked === undefined) throw notFound("The organization has no setup link with this id.");
      sendJson(call.response, 200, revoked);
    },
    async openSetup(call) {
      const { code } = call.body as { readonly code: string };
      const session = newSetupSession();
      const opened = await store.useSetupLink(hashToken(code), now().toISOString(), hashToken(session));
      if (opened === undefined) throw notFound("This is not a setup link this service issued: check that the whole link was copied.");
      if (typeof opened === "string") throw setupLinkGone(GONE[opened]);
      const organization = await store.getOrganization({ all: true }, opened.orgId);
      if (organization === undefined) throw notFound("This setup link's organization is gone.");
      sendSecret(call.response, 201, {
        session,
        expiresAt: opened.expiresAt,
        organization: { id: organization.id, name: organization.name },
      });
    },
    async getSetup(call) {
      sendJson(call.response, 200, await setupOf(call, linkOf(call)));
    },
    async chooseSetupIdentityProvider(call) {
      const link = linkOf(call);
      const { identityProvider } = call.body as { readonly identityProvider: SetupIdentityProvider };
      await store.setSetupIdentityProvider(link.id, identityProvider);
      const updated = await store.updateOrganization({ all: true }, link.orgId, {
        compatibility: PROFILE_OF[identityProvider],
        updatedAt: now().toISOString(),
      });
      if (updated === undefined) throw notFound("This setup link's organization is gone.");
      sendJson(call.response, 200, await setupOf(call, { ...link, identityProvider }));
    },
    async revealSetupToken(call) {
      const link = linkOf(call);
      if (link.tokenId !== undefined)
        throw conflict("This setup link's page showed its token already; ask your administrator to rotate it if it was lost.");
      const issued = await dependencies.scimTokens.issue(link.orgId, { label: `setup link ${link.id}` });
      // Two pages of one session revealing at once: the second token is taken back, not shown.
      if (!(await store.recordSetupToken(link.id, issued.record.id))) {
        await dependencies.scimTokens.revoke(link.orgId, issued.record.id);
        throw conflict("This setup link's page showed its token already; ask your administrator to rotate it if it was lost.");
      }
      sendSecret(call.response, 201, { id: issued.record.id, token: issued.token });
    },
    async rotateSetupToken(call) {
      const link = linkOf(call);
      const rotated = await dependencies.scimTokens.rotate(link.orgId, revealedToken(link), { graceSeconds: MAX_ROTATION_GRACE_SECONDS });
      if (rotated === undefined) throw notFound("The token this link's page revealed was revoked; ask your administrator for a new link.");
      sendSecret(call.response, 200, {
        id: rotated.record.id,
        token: rotated.token,
        ...(rotated.record.previousSecretValidUntil === undefined
          ? {}
          : { previousSecretValidUntil: rotated.record.previousSecretValidUntil }),
      });
    },
    async confirmSetupTokenRotation(call) {
      const link = linkOf(call);
      const tokenId = revealedToken(link);
      const { endRotationGrace } = dependencies.scimTokens;
      if (endRotationGrace === undefined) throw notImplemented("This host's token store cannot end a rotation's grace period early.");
      if ((await endRotationGrace.call(dependencies.scimTokens, link.orgId, tokenId)) === undefined) {
        throw notFound("The token this link's page revealed was revoked; ask your administrator for a new link.");
      }
      sendJson(call.response, 200, await setupOf(call, link));
    },
    async getSetupHealth(call) {
      const link = linkOf(call);
      if (log === undefined) throw notFound("This host keeps no provisioning log, so there is no health to show.");
      sendJson(call.response, 200, await organizationHealth(log, dependencies.scimTokens, link.orgId, now()));
    },
    async listSetupRequests(call) {
      const link = linkOf(call);
      if (log === undefined) throw notFound("This host keeps no provisioning log, so there are no requests to show.");
      const limit = typeof call.query["limit"] === "number" ? call.query["limit"] : 20;
      const page = await log.list(link.orgId, { limit });
      sendJson(call.response, 200, {
        data: page.entries.map((entry) => ({
          requestId: entry.requestId,
          at: entry.at,
          method: entry.method,
          path: entry.path,
          status: entry.status,
          ...(entry.scimType === undefined ? {} : { scimType: entry.scimType }),
          ...(entry.detail === undefined ? {} : { detail: entry.detail }),
          ...(entry.identityProvider === undefined ? {} : { identityProvider: entry.identityProvider }),
          ...(entry.userAgent === undefined ? {} : { userAgent: entry.userAgent }),
        })),
      });
    },
  };
}
