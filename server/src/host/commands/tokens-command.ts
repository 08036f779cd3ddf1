/**
 * `scimkit tokens list|issue|rotate|revoke <org>`: an organization's SCIM tokens, through the
 * store the hosts read on every request — so a rotation or revocation holds from their next
 * request on, no restart. What the operator API's token operations do, from a shell: a secret is
 * printed once, on stdout only; lists carry ids and prefixes, never a secret or its digest.
 */
import { MAX_ROTATION_GRACE_SECONDS } from "scimkit";
import { renderIssuedToken, renderStaticToken, type AnalyticsStore } from "@scimkit/server";
import { staticTokens } from "../static-tokens.js";
import type { HostCommand } from "./host-command.js";
import { auditedCommandWrite, type CliAuditOperation } from "./audited-command-write.js";
import { failure, noSubcommand, noSuchOrganization, unknownSubcommand, usageError } from "./command-error.js";
import { withCommandStore } from "./open-command-store.js";
import { futureTime, parseCommandArgs } from "./parse-command-args.js";
import { tokenLine } from "./render-token.js";

const USAGE = [
  "Usage: scimkit tokens <subcommand> <org> [options]",
  "",
  "Subcommands:",
  "  list <org>                      The organization's tokens, issued and static (ids, prefixes; never a secret)",
  "  issue <org>                     Issue a token; its secret is printed once, on stdout",
  "      --label <text>              What the token is for",
  "      --expires <ISO time>        When it stops working (in the future)",
  "  rotate <org> <tokenId>          A new secret for the token (printed once); the old one stops",
  "      --grace-seconds <n>         Let the old secret work n more seconds (default 0: stops at once)",
  "      --expires <ISO time>        A new expiry",
  "  revoke <org> <tokenId>          Delete the token: it fails from the next request on",
  "",
  "Options:",
  "  --json      One JSON object on stdout, for scripts",
  "  -h, --help  Show this text",
  "",
  "The store is the one DATABASE_URL names, as for `scimkit serve`.",
].join("\n");

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  label: { type: "string" },
  expires: { type: "string" },
  "grace-seconds": { type: "string" },
} as const;

/** Which options each subcommand takes (besides --json and --help), and how many arguments. */
const SUBCOMMANDS: Readonly<Record<string, { readonly options: readonly string[]; readonly arguments: readonly string[] }>> = {
  list: { options: [], arguments: ["<org>"] },
  issue: { options: ["label", "expires"], arguments: ["<org>"] },
  rotate: { options: ["grace-seconds", "expires"], arguments: ["<org>", "<tokenId>"] },
  revoke: { options: [], arguments: ["<org>", "<tokenId>"] },
};

function graceSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw usageError(`--grace-seconds ${JSON.stringify(value)} is not a whole number of seconds`);
  const seconds = Number(value);
  // The token store's bound, checked here so it is a usage error rather than a failure.
  if (seconds > MAX_ROTATION_GRACE_SECONDS) throw usageError(`--grace-seconds may be at most ${MAX_ROTATION_GRACE_SECONDS} (7 days)`);
  return seconds;
}

/** Exit 1 unless the organization exists: a token of an organization nobody serves would be of no use. */
async function requireOrganization(analytics: AnalyticsStore, orgId: string): Promise<void> {
  if ((await analytics.getOrganization({ all: true }, orgId)) === undefined) throw noSuchOrganization(orgId);
}

const STATIC_TOKEN =
  "this token is static: it comes from SCIMKIT_ORGS and changes only there, when the hosts restart; to replace it without a restart, issue a token, move the identity provider to it, then remove the static one";

const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

export const tokensCommand: HostCommand = {
  name: "tokens",
  summary: "list|issue|rotate|revoke <org>: an organization's SCIM tokens",
  takesArguments: true,
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return;
    }
    const [subcommand, ...rest] = positionals;
    if (subcommand === undefined) throw noSubcommand();
    const shape = SUBCOMMANDS[subcommand];
    if (shape === undefined) throw unknownSubcommand(subcommand);
    for (const option of ["label", "expires", "grace-seconds"] as const) {
      if (values[option] !== undefined && !shape.options.includes(option)) throw usageError(`tokens ${subcommand} takes no --${option}`);
    }
    if (rest.length !== shape.arguments.length)
      throw usageError(`tokens ${subcommand} takes ${shape.arguments.join(" ")}; got ${rest.length} argument(s)`);
    const [orgId = "", tokenId = ""] = rest;
    const json = values.json === true;
    // Checked before the store is opened: a wrong command line changes nothing.
    const expiresAt = futureTime(values.expires, "--expires");
    const grace = graceSeconds(values["grace-seconds"]);

    await withCommandStore(async ({ analytics, tokens, audit }, settings) => {
      // This shell's SCIMKIT_ORGS, which the hosts share when they run with the same environment.
      const configured = staticTokens(settings.organizations, orgId).map(renderStaticToken);
      // A write is audited from its first check on, as the API audits its refusals.
      const audited = <T>(operation: CliAuditOperation, status: 200 | 201 | 204, work: () => Promise<T>, idOf?: (result: T) => string) =>
        auditedCommandWrite(audit, { operation, orgId, resourceType: "ScimToken", resourceId: idOf ?? tokenId, status }, async () => {
          await requireOrganization(analytics, orgId);
          if (configured.some((token) => token["id"] === tokenId)) throw failure(STATIC_TOKEN, 409);
          return work();
        });
      switch (subcommand) {
        case "list": {
          await requireOrganization(analytics, orgId);
          const data = [...configured, ...(await tokens.list(orgId)).map(renderIssuedToken)];
          if (json) print({ data });
          else if (data.length === 0) console.log(`${orgId} has no tokens`);
          else for (const token of data) console.log(tokenLine(token));
          return;
        }
        case "issue": {
          const label = values.label?.trim();
          const issued = await audited(
            "cli.issueOrganizationToken",
            201,
            () =>
              tokens.issue(orgId, {
                ...(label === undefined || label === "" ? {} : { label }),
                ...(expiresAt === undefined ? {} : { expiresAt }),
              }),
            (result) => result.record.id,
          );
          const token = renderIssuedToken(issued.record);
          if (json) print({ token, secret: issued.token });
          else {
            console.log(`Token ${token["id"]} issued for ${orgId}: ${tokenLine(token)}`);
            console.log(`Secret (shown once): ${issued.token}`);
          }
          return;
        }
        case "rotate": {
          const rotated = await audited("cli.rotateOrganizationToken", 200, async () => {
            const result = await tokens.rotate(orgId, tokenId, {
              ...(grace === undefined ? {} : { graceSeconds: grace }),
              ...(expiresAt === undefined ? {} : { expiresAt }),
            });
            if (result === undefined) throw failure(`${orgId} has no issued token ${JSON.stringify(tokenId)}`);
            return result;
          });
          const token = renderIssuedToken(rotated.record);
          if (json) print({ token, secret: rotated.token });
          else {
            const old = token["previousSecretValidUntil"];
            console.log(
              `Token ${tokenId} of ${orgId} rotated; the old secret ${old === undefined ? "no longer works" : `works until ${old}`}`,
            );
            console.log(`Secret (shown once): ${rotated.token}`);
          }
          return;
        }
        case "revoke": {
          await audited("cli.revokeOrganizationToken", 204, async () => {
            if (!(await tokens.revoke(orgId, tokenId))) throw failure(`${orgId} has no issued token ${JSON.stringify(tokenId)}`);
          });
          if (json) print({ revoked: { organization: orgId, id: tokenId } });
          else console.log(`Token ${tokenId} of ${orgId} revoked: it fails from the next request on`);
          return;
        }
      }
    });
  },
};
