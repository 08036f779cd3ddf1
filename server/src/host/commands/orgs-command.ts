/**
 * `scimkit orgs list|create|set|suspend|resume|delete`: the organizations the hosts serve, through
 * the analytics store they check on every request — what the operator API's organization
 * operations do, from a shell. `create` issues the organization's first SCIM token and prints it
 * once with its SCIM base path, as the API's create answers.
 */
import {
  CHOSEN_ORGANIZATION_ID_PATTERN,
  describeTreeRefusal,
  isOrganizationTreeError,
  MAX_ORGANIZATION_DEPTH,
  renderOrganization,
  type Organization,
  type OrganizationChange,
  type OrganizationStatus,
} from "@scimkit/server";
import type { ExistingUserPolicy } from "scimkit";
import { COMPATIBILITY_PROFILE_NAMES, type CompatibilityProfileName } from "scimkit/core";
import type { HostCommand } from "./host-command.js";
import { auditedCommandWrite } from "./audited-command-write.js";
import { failure, noSubcommand, unknownSubcommand, usageError } from "./command-error.js";
import { withCommandStore } from "./open-command-store.js";
import { parseCommandArgs } from "./parse-command-args.js";
import { scimBaseUrl } from "../scim-base-url.js";

const USAGE = [
  "Usage: scimkit orgs <subcommand> [options]",
  "",
  "Subcommands:",
  "  list                 Every organization, with its status and parent",
  "  create <name>        Create an organization and issue its first SCIM token (printed once, on stdout)",
  "      --id <id>        Its id in SCIM paths: 1-64 of A-Z a-z 0-9 . _ ~ - (default: a new UUID)",
  "      --compatibility <profile>   Identity-provider tolerances its SCIM requests get (default: generic)",
  "      --existing-users <choice>   conflict (409, the default) or link: what POST /Users does with a user that exists",
  "      --parent <id>    The organization it belongs under (a division of a company); default: none",
  "      --region <name>  With SCIMKIT_REGION: the region to hold its data, which must be this host's (default)",
  "  set <id>             Change it: --name <name>, --compatibility <profile>, --existing-users <choice>,",
  "                       --parent <id> (moves it with its subtree; `none` makes it a root)",
  "                       (`default` returns a setting to its default)",
  "  suspend <id>         Its SCIM tokens answer 401 from the next request on; its data stays",
  "  resume <id>          Its tokens work again",
  "      --cascade        suspend/resume: every organization below it too",
  "  delete <id> --yes    Delete it with everything of it: users, groups, tokens, analytics",
  "      --subtree        Also every organization below it (refused without, when it has any)",
  "",
  `Profiles: ${COMPATIBILITY_PROFILE_NAMES.join(", ")} (docs/compatibility-profiles.md)`,
  `Organizations form a tree at most ${MAX_ORGANIZATION_DEPTH} deep; a parent that would make a cycle is refused.`,
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
  id: { type: "string" },
  yes: { type: "boolean" },
  name: { type: "string" },
  compatibility: { type: "string" },
  "existing-users": { type: "string" },
  parent: { type: "string" },
  region: { type: "string" },
  subtree: { type: "boolean" },
  cascade: { type: "boolean" },
} as const;

const EXISTING_USERS: readonly ExistingUserPolicy[] = ["conflict", "link"];

/** A setting's value from its option: the value, `null` for `default` (where allowed), undefined when not given. */
function choice<T extends string>(
  option: string,
  value: string | undefined,
  allowed: readonly T[],
  resettable: boolean,
): T | null | undefined {
  if (value === undefined) return undefined;
  if (resettable && value === "default") return null;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw usageError(`--${option} ${JSON.stringify(value)}: expected one of ${[...allowed, ...(resettable ? ["default"] : [])].join(", ")}`);
}

/** The operator API's own rule for chosen ids: one SCIM path segment. */
const CHOSEN_ID = new RegExp(CHOSEN_ORGANIZATION_ID_PATTERN);

/** How many arguments each subcommand takes after its name. */
const ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  list: [],
  create: ["<name>"],
  set: ["<id>"],
  suspend: ["<id>"],
  resume: ["<id>"],
  delete: ["<id>"],
};

const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));
const noSuchOrganization = (id: string): Error => failure(`there is no organization ${JSON.stringify(id)}`);

/** `work`, with the store's refusal of a tree change as the failure the operator API answers it with. */
async function treeChecked<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isOrganizationTreeError(error)) throw error;
    const message = describeTreeRefusal(error.refusal, "--subtree");
    throw failure(message, error.refusal.kind === "unknown-parent" ? 404 : 409);
  }
}

export const orgsCommand: HostCommand = {
  name: "orgs",
  summary: "list|create|set|suspend|resume|delete: the organizations the hosts serve",
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
    const shape = ARGUMENTS[subcommand];
    if (shape === undefined) throw unknownSubcommand(subcommand);
    if (rest.length !== shape.length) throw usageError(`orgs ${subcommand} takes ${shape.join(" ") || "no argument"}; got ${rest.length}`);
    if (values.id !== undefined && subcommand !== "create") throw usageError(`orgs ${subcommand} takes no --id`);
    if (values.name !== undefined && subcommand !== "set") throw usageError(`orgs ${subcommand} takes no --name`);
    for (const option of ["compatibility", "existing-users"] as const) {
      if (values[option] !== undefined && subcommand !== "create" && subcommand !== "set")
        throw usageError(`orgs ${subcommand} takes no --${option}`);
    }
    if (values.subtree !== undefined && subcommand !== "delete") throw usageError(`orgs ${subcommand} takes no --subtree`);
    if (values.cascade !== undefined && subcommand !== "suspend" && subcommand !== "resume")
      throw usageError(`orgs ${subcommand} takes no --cascade`);
    if (values.parent !== undefined && subcommand !== "create" && subcommand !== "set")
      throw usageError(`orgs ${subcommand} takes no --parent`);
    if (values.parent !== undefined && !CHOSEN_ID.test(values.parent) && !(subcommand === "set" && values.parent === "none"))
      throw usageError(`--parent ${JSON.stringify(values.parent)}: an organization id${subcommand === "set" ? ", or none" : ""}`);
    // `none` on set: no parent any more.
    const parentId = values.parent === undefined ? undefined : subcommand === "set" && values.parent === "none" ? null : values.parent;
    const resettable = subcommand === "set";
    const compatibility = choice<CompatibilityProfileName>("compatibility", values.compatibility, COMPATIBILITY_PROFILE_NAMES, resettable);
    const existingUsers = choice("existing-users", values["existing-users"], EXISTING_USERS, resettable);
    const newName = values.name?.trim();
    if (newName !== undefined && (newName === "" || newName.length > 200))
      throw usageError("--name must have 1-200 characters, not only spaces");
    if (
      subcommand === "set" &&
      compatibility === undefined &&
      existingUsers === undefined &&
      newName === undefined &&
      parentId === undefined
    )
      throw usageError("orgs set needs --name, --compatibility, --existing-users or --parent");
    if (values.yes !== undefined && subcommand !== "delete") throw usageError(`orgs ${subcommand} takes no --yes`);
    if (values.region !== undefined && subcommand !== "create") throw usageError(`orgs ${subcommand} takes no --region`);
    const [argument = ""] = rest;
    const json = values.json === true;
    if (subcommand === "create") {
      if (argument.trim() === "" || argument.trim().length > 200) throw usageError("the name must have 1-200 characters, not only spaces");
      if (values.id !== undefined && !CHOSEN_ID.test(values.id))
        throw usageError(`--id ${JSON.stringify(values.id)}: 1-64 of A-Z a-z 0-9 . _ ~ -, and not "." or ".."`);
    }
    // Deleting takes every user, group and token of the organization: not on a slip of the keyboard.
    if (subcommand === "delete" && values.yes !== true)
      throw usageError(
        `orgs delete deletes ${JSON.stringify(argument)}${values.subtree === true ? " and every organization below it" : ""} with all its users, groups and tokens; add --yes to do it`,
      );

    await withCommandStore(async ({ analytics, tokens, audit }, settings) => {
      switch (subcommand) {
        case "list": {
          const data: Organization[] = [];
          let after: string | undefined;
          do {
            const page = await analytics.listOrganizations({ all: true }, { limit: 1000, ...(after === undefined ? {} : { after }) });
            data.push(...page.items);
            after = page.next;
          } while (after !== undefined);
          if (json) print({ data: data.map(renderOrganization) });
          else if (data.length === 0) console.log("no organizations");
          else
            for (const organization of data) {
              const under = organization.parentId === undefined ? "" : `  (under ${organization.parentId})`;
              console.log(`${organization.id}  ${organization.status}  ${organization.name}${under}`);
            }
          return;
        }
        case "create": {
          const at = new Date().toISOString();
          const organization: Organization = {
            id: values.id ?? crypto.randomUUID(),
            name: argument.trim(),
            status: "active",
            ...(compatibility ? { compatibility } : {}),
            ...(existingUsers ? { existingUsers } : {}),
            ...(parentId ? { parentId } : {}),
            createdAt: at,
            updatedAt: at,
          };
          const taken = (): Error => failure(`an organization with id ${JSON.stringify(organization.id)} exists; choose another --id`, 409);
          const region = settings.regions;
          // Issue 30: created where its data is to live, and with an id no other region holds.
          if (values.region !== undefined && region === undefined)
            throw usageError("--region: this host runs in one region (SCIMKIT_REGION is unset)");
          if (region !== undefined && values.region !== undefined && values.region !== region.self) {
            const url = region.baseUrls[values.region];
            if (url === undefined)
              throw usageError(
                `--region ${JSON.stringify(values.region)}: the regions are ${Object.keys(region.baseUrls).sort().join(", ")}`,
              );
            throw usageError(
              `--region ${values.region}: this host serves region ${region.self}; create an organization homed in ${values.region} on that region's host (${url}), so that its data is written there only`,
            );
          }
          const elsewhere =
            region === undefined ? undefined : (await analytics.listRegionEntries()).find((entry) => entry.id === organization.id);
          if (elsewhere !== undefined)
            throw failure(
              `an organization with id ${JSON.stringify(organization.id)} exists in region ${elsewhere.homeRegion}; choose another --id`,
              409,
            );
          const write = { operation: "cli.createOrganization", orgId: organization.id, resourceType: "Organization", status: 201 } as const;
          const issued = await auditedCommandWrite(audit, { ...write, resourceId: organization.id }, async () => {
            if ((await analytics.getOrganization({ all: true }, organization.id)) !== undefined) throw taken();
            try {
              await treeChecked(() => analytics.createOrganization(organization, { clearLeftovers: true }));
            } catch (error) {
              // A concurrent create with the same id: the store's key refused ours.
              if ((await analytics.getOrganization({ all: true }, organization.id)) !== undefined) throw taken();
              throw error;
            }
            return tokens.issue(organization.id, { label: "issued when the organization was created" });
          });
          const baseUrl = scimBaseUrl(settings.publicUrl ?? "", organization.id);
          if (json)
            print({
              organization: renderOrganization(organization),
              scim: { baseUrl, token: issued.token, ...(region ? { region: region.self } : {}) },
            });
          else {
            console.log(`Organization ${organization.id} created (${organization.name})${region ? ` in region ${region.self}` : ""}`);
            console.log(`SCIM base ${settings.publicUrl === undefined ? "path" : "URL"}: ${baseUrl}`);
            console.log(`SCIM token ${issued.record.id} (shown once): ${issued.token}`);
          }
          return;
        }
        case "suspend":
        case "resume": {
          const status: OrganizationStatus = subcommand === "suspend" ? "suspended" : "active";
          const operation = subcommand === "suspend" ? "cli.suspendOrganization" : "cli.resumeOrganization";
          const write = { operation, orgId: argument, resourceType: "Organization", resourceId: argument, status: 200 } as const;
          const updated = await auditedCommandWrite(audit, write, async () => {
            const cascade = values.cascade === true ? { cascade: true } : {};
            const changed = await analytics.updateOrganization({ all: true }, argument, {
              status,
              ...cascade,
              updatedAt: new Date().toISOString(),
            });
            if (changed === undefined) throw noSuchOrganization(argument);
            return changed;
          });
          if (json) print(renderOrganization(updated));
          else
            console.log(
              `Organization ${updated.id}${values.cascade === true ? " and every organization below it" : ""} ${status === "suspended" ? "suspended: their tokens answer 401" : "resumed: their tokens work again"}`,
            );
          return;
        }
        case "set": {
          const change: OrganizationChange = {
            ...(newName === undefined ? {} : { name: newName }),
            ...(compatibility === undefined ? {} : { compatibility }),
            ...(existingUsers === undefined ? {} : { existingUsers }),
            ...(parentId === undefined ? {} : { parentId }),
            updatedAt: new Date().toISOString(),
          };
          const write = {
            operation: "cli.updateOrganization",
            orgId: argument,
            resourceType: "Organization",
            resourceId: argument,
            status: 200,
          } as const;
          const updated = await auditedCommandWrite(audit, write, async () => {
            const changed = await treeChecked(() => analytics.updateOrganization({ all: true }, argument, change));
            if (changed === undefined) throw noSuchOrganization(argument);
            return changed;
          });
          if (json) print(renderOrganization(updated));
          else
            console.log(
              `Organization ${updated.id}: name ${JSON.stringify(updated.name)}, compatibility ${updated.compatibility ?? "generic (default)"}, existing users ${updated.existingUsers ?? "conflict (default)"}, parent ${updated.parentId ?? "none"}; from the hosts' next request on`,
            );
          return;
        }
        case "delete": {
          const write = {
            operation: "cli.deleteOrganization",
            orgId: argument,
            resourceType: "Organization",
            resourceId: argument,
            status: 204,
          } as const;
          const subtree = values.subtree === true;
          const members = await auditedCommandWrite(audit, write, async () => {
            const ids = subtree ? await analytics.listSubtreeIds([argument]) : [argument];
            if (!(await treeChecked(() => analytics.deleteOrganization({ all: true }, argument, { subtree }))))
              throw noSuchOrganization(argument);
            // As the API does: a token store kept apart from the analytics store must lose them too.
            for (const id of ids) await tokens.revokeAll(id);
            return ids;
          });
          if (json) print({ deleted: { id: argument, ...(subtree ? { subtree: members } : {}) } });
          else if (members.length > 1)
            console.log(`Organization ${argument} deleted with its ${members.length - 1} descendants and everything of them`);
          else console.log(`Organization ${argument} deleted with everything of it`);
          return;
        }
      }
    });
  },
};
