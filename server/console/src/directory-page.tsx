/**
 * An organization's directory as its identity provider provisioned it: users and groups,
 * searchable by userName, displayName or externalId; a user's groups; a group's members a page
 * at a time (the server pages in the database, so a group of 100,000 stays fast).
 */
import { useState } from "preact/hooks";
import type { DirectoryGroup, DirectoryMemberList, DirectoryUser, DirectoryUserDetail } from "./analytics-api-types.js";
import { type Page, seg } from "./api-client.js";
import { useApi } from "./context.js";
import { ErrorNotice } from "./error-notice.js";
import { OrganizationPicker } from "./organization-picker.js";
import { href, navigate, type Place } from "./router.js";
import { useAsync } from "./use-async.js";

const PAGE = 50;
const MEMBERS_PAGE = 100;

export function DirectoryPage({ place }: { readonly place: Place }) {
  const org = place.query.get("org") ?? undefined;
  const tab = place.query.get("tab") === "groups" ? "groups" : "users";
  const search = place.query.get("q") ?? "";
  const user = place.query.get("user") ?? undefined;
  const group = place.query.get("group") ?? undefined;
  const go = (query: Record<string, string | undefined>, replace = false): void =>
    navigate(href("/directory", { org, tab, q: search, ...query }), replace);
  const [typed, setTyped] = useState(search);
  return (
    <>
      <h1>Directory</h1>
      <div class="filters">
        <OrganizationPicker id="directory-org" value={org} onChange={(orgId) => navigate(href("/directory", { org: orgId, tab }))} />
      </div>
      {org === undefined ? (
        <p>Choose an organization to see its users and groups.</p>
      ) : (
        <>
          <nav class="tabs" aria-label="What to list">
            <a
              class="tab"
              href={href("/directory", { org, tab: "users" })}
              aria-current={tab === "users" ? "page" : undefined}
              onClick={tabClick}
            >
              Users
            </a>
            <a
              class="tab"
              href={href("/directory", { org, tab: "groups" })}
              aria-current={tab === "groups" ? "page" : undefined}
              onClick={tabClick}
            >
              Groups
            </a>
          </nav>
          <form
            class="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              go({ q: typed.trim(), user: undefined, group: undefined });
            }}
          >
            <div class="field">
              <label for="directory-search">
                Search {tab}: {tab === "users" ? "userName, displayName or externalId" : "displayName or externalId"} starts with
              </label>
              <input id="directory-search" type="search" value={typed} onInput={(event) => setTyped(event.currentTarget.value)} />
            </div>
            <button type="submit">Search</button>
          </form>
          <div class={user || group ? "split" : ""}>
            {/* Keyed by the tab too: one list kept across tabs would hold the users it loaded while
                rendering them with the group columns (a TypeError, issue 27), and its pages' cursors. */}
            {tab === "users" ? (
              <DirectoryList
                key={`users|${org}|${search}`}
                kind="users"
                columns={USER_COLUMNS}
                org={org}
                search={search}
                selected={user}
                onSelect={(id) => go({ user: id })}
              />
            ) : (
              <DirectoryList
                key={`groups|${org}|${search}`}
                kind="groups"
                columns={GROUP_COLUMNS}
                org={org}
                search={search}
                selected={group}
                onSelect={(id) => go({ group: id })}
              />
            )}
            {tab === "users" && user ? <UserPanel org={org} id={user} onGroup={(id) => go({ tab: "groups", group: id, q: "" })} /> : null}
            {tab === "groups" && group ? (
              <MembersPanel key={group} org={org} id={group} onUser={(id) => go({ tab: "users", user: id, q: "" })} />
            ) : null}
          </div>
        </>
      )}
    </>
  );
}

function tabClick(event: MouseEvent): void {
  event.preventDefault();
  const anchor = event.currentTarget as HTMLAnchorElement;
  navigate(anchor.getAttribute("href") ?? "/console/directory");
}

/** Cursor pages walked forward and back: the cursors of the pages before this one. */
function usePages(): { cursor: string | undefined; back: () => void; next: (cursor: string) => void; page: number; reset: () => void } {
  const [stack, setStack] = useState<readonly (string | undefined)[]>([undefined]);
  return {
    cursor: stack[stack.length - 1],
    page: stack.length,
    back: () => setStack((previous) => (previous.length > 1 ? previous.slice(0, -1) : previous)),
    next: (cursor) => setStack((previous) => [...previous, cursor]),
    reset: () => setStack([undefined]),
  };
}

function Pager({
  pages,
  nextCursor,
  label,
}: {
  readonly pages: ReturnType<typeof usePages>;
  readonly nextCursor: string | null | undefined;
  readonly label: string;
}) {
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" class="secondary" disabled={pages.page <= 1} onClick={pages.back}>
        Previous page
      </button>
      <span>Page {pages.page}</span>
      <button type="button" class="secondary" disabled={!nextCursor} onClick={() => nextCursor && pages.next(nextCursor)}>
        Next page
      </button>
    </nav>
  );
}

/** A column of a directory list: the first is the one whose button selects the row. */
interface Column<T> {
  readonly heading: string;
  readonly cell: (item: T) => string;
}

/** One searchable, paged list of the directory: users or groups. */
function DirectoryList<T extends { readonly id: string }>({
  org,
  search,
  selected,
  onSelect,
  kind,
  columns,
}: {
  readonly org: string;
  readonly search: string;
  readonly selected: string | undefined;
  readonly onSelect: (id: string) => void;
  /** The endpoint under `directory/`, and the list's name in the page ("users", "groups"). */
  readonly kind: "users" | "groups";
  readonly columns: readonly [Column<T>, ...Column<T>[]];
}) {
  const api = useApi();
  const pages = usePages();
  const items = useAsync(
    () => api.get<Page<T>>(`/organizations/${seg(org)}/directory/${kind}`, { search, limit: PAGE, cursor: pages.cursor }),
    [api, org, kind, search, pages.cursor],
  );
  const label = kind === "users" ? "Users" : "Groups";
  const [first, ...rest] = columns;
  return (
    <div>
      <ErrorNotice error={items.error} />
      <section class="table-wrap" aria-label={label}>
        <table>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column.heading} scope="col">
                  {column.heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(items.value?.data ?? []).map((item) => (
              <tr key={item.id} class={item.id === selected ? "selected" : ""}>
                <td>
                  <button type="button" class="link" aria-pressed={item.id === selected} onClick={() => onSelect(item.id)}>
                    {first.cell(item)}
                  </button>
                </td>
                {rest.map((column) => (
                  <td key={column.heading}>{column.cell(item)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {items.value && items.value.data.length === 0 ? (
        <p>
          No {kind}
          {search ? ` match “${search}”` : ""}.
        </p>
      ) : null}
      <Pager pages={pages} nextCursor={items.value?.nextCursor} label={label} />
    </div>
  );
}

const USER_COLUMNS: readonly [Column<DirectoryUser>, ...Column<DirectoryUser>[]] = [
  { heading: "userName", cell: (user) => user.userName },
  { heading: "displayName", cell: (user) => user.displayName ?? "—" },
  { heading: "externalId", cell: (user) => user.externalId ?? "—" },
  { heading: "Active", cell: (user) => (user.active ? "yes" : "no") },
];

const GROUP_COLUMNS: readonly [Column<DirectoryGroup>, ...Column<DirectoryGroup>[]] = [
  { heading: "displayName", cell: (group) => group.displayName ?? "—" },
  { heading: "externalId", cell: (group) => group.externalId ?? "—" },
  { heading: "Members", cell: (group) => group.memberCount.toLocaleString() },
];

function UserPanel({ org, id, onGroup }: { readonly org: string; readonly id: string; readonly onGroup: (id: string) => void }) {
  const api = useApi();
  const user = useAsync(() => api.get<DirectoryUserDetail>(`/organizations/${seg(org)}/directory/users/${seg(id)}`), [api, org, id]);
  const { groups, ...resource } = user.value ?? {};
  return (
    <section class="panel detail" aria-labelledby="user-title">
      <h2 id="user-title">{user.value?.userName ?? "User"}</h2>
      <ErrorNotice error={user.error} />
      <h3>Groups</h3>
      {groups && groups.length > 0 ? (
        <ul data-testid="user-groups">
          {groups.map((group) => (
            <li key={group.id}>
              <button type="button" class="link" onClick={() => onGroup(group.id)}>
                {group.displayName}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p>{user.value ? "In no group." : "Loading…"}</p>
      )}
      <details>
        <summary>SCIM resource</summary>
        <pre>{user.value ? JSON.stringify(resource, null, 2) : ""}</pre>
      </details>
    </section>
  );
}

function MembersPanel({ org, id, onUser }: { readonly org: string; readonly id: string; readonly onUser: (id: string) => void }) {
  const api = useApi();
  const pages = usePages();
  const members = useAsync(
    () =>
      api.get<DirectoryMemberList>(`/organizations/${seg(org)}/directory/groups/${seg(id)}/members`, {
        limit: MEMBERS_PAGE,
        cursor: pages.cursor,
      }),
    [api, org, id, pages.cursor],
  );
  const first = (pages.page - 1) * MEMBERS_PAGE + 1;
  const count = members.value?.data.length ?? 0;
  return (
    <section class="panel detail" aria-labelledby="members-title" data-testid="members">
      <h2 id="members-title">Members</h2>
      <ErrorNotice error={members.error} />
      <p class="hint" aria-live="polite">
        {members.loading ? "Loading…" : count === 0 ? "No members." : `Members ${first}–${first + count - 1}`}
      </p>
      <ol start={first} class="members" aria-busy={members.loading}>
        {(members.value?.data ?? []).map((member) => (
          <li key={member.id}>
            {member.type === "User" ? (
              <button type="button" class="link" onClick={() => onUser(member.id)}>
                {member.userName ?? member.display ?? member.id}
              </button>
            ) : (
              <span>
                {member.display ?? member.id} <span class="hint">({member.type})</span>
              </span>
            )}
          </li>
        ))}
      </ol>
      <Pager pages={pages} nextCursor={members.value?.nextCursor} label="Members" />
    </section>
  );
}
