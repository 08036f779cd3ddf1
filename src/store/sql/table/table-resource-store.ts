/**
 * The `ResourceStore` over the application's own tables (issue 16, architecture §7.6): each write
 * is one transaction over the application's row and the two side tables (`table-side-tables.ts`),
 * so all of it happens, or (on a 409, 412 or a hook's error) none of it. Filters, sorts and cursors
 * compile to SQL over the mapped columns through the SQL store's compilers (`tableRowSource`).
 */
import { CompiledQuery, sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import { scimError, type ScimError } from "../../../errors.js";
import { deepEqual } from "../../../scim/deep-equal.js";
import type { ScimObject } from "../../../scim/schema/normalize-value.js";
import { changesMembers, planMembership, type MembershipPlan } from "../../membership-plan.js";
import type { ListResult, ResourceStore, StoredResource, StoreScope, UniqueKey, WriteResult } from "../../resource-store.js";
import { preconditionFailedError, uniquenessError, unknownMembersError } from "../../store-errors.js";
import type { StoreOptions } from "../../store-options.js";
import type { RowLock, SqlDialect } from "../dialects/sql-dialect.js";
import { compileFilterSql } from "../filter/compile-filter-sql.js";
import { keysetAfterSql, orderBySql } from "../filter/sort-sql.js";
import { totalFromPage } from "../list-resources.js";
import type { SqlStoreDatabase } from "../sql-tables.js";
import { uniqueValue } from "../../../scim/schema/unique-value.js";
import { foldedColumnEquality } from "./folded-column-equality.js";
import { childColumns, locationOfKey, mappedColumns, type ChildColumns } from "./mapped-columns.js";
import { deleteChildRows, readChildRows, replaceChildRows } from "./child-table.js";
import { memberTable, type MemberOperations } from "./member-table.js";
import type { ColumnValue, GroupTableMapping, OrganizationMapping, TableMapping } from "./table-mapping.js";
import { META_ALIAS, tableMeta, type TableMeta } from "./table-meta.js";
import { idParameter, tableRowSource } from "./table-row-source.js";
import { rowMapper, valueAt } from "./table-row.js";
import { TABLE_KEYS, TABLE_META } from "./table-side-tables.js";
import { constraintViolation } from "./constraint-violation.js";

/** The alias of the application's table in every query, which the compiled filters refer to. */
const ROW = "t";

/** Placeholders of `readOne`'s compiled statement, replaced by position: no constant of a mapping equals them. */
const ORG_SLOT = "\u0000scimkit:org";
const TYPE_SLOT = "\u0000scimkit:type";
const ID_SLOT = "\u0000scimkit:id";

/** The time a resource the application wrote itself, without a `scimkit_table_meta` row, reports. */
const NEVER_WRITTEN = new Date(0).toISOString();

/** What the table store serves: the organization mapping and one table per resource type. */
export interface TableResourceStoreOptions extends StoreOptions {
  readonly organization: OrganizationMapping;
  /** The `User` resource type's table. */
  readonly users: TableMapping;
  /** The `Group` resource type's table and its members; absent: groups are not kept. */
  readonly groups?: GroupTableMapping;
}

type Row = Readonly<Record<string, unknown>>;

interface TypeTable {
  readonly resourceType: string;
  readonly mapping: TableMapping;
  readonly columns: ReturnType<typeof mappedColumns>;
  readonly mapper: ReturnType<typeof rowMapper>;
  /** Where its version and times are. */
  readonly meta: TableMeta;
  /** Multi-valued attributes in child tables. */
  readonly children: readonly ChildColumns[];
  /** The member list's operations, for a type with members. */
  readonly members?: MemberOperations;
  /** The member list's join table, for a type with members. */
  readonly memberMapping?: GroupTableMapping["members"];
}

function notServed(resourceType: string): ScimError {
  // RFC 7644 §3.12: 501 for an operation the service does not support.
  return scimError("notImplemented", `This service does not keep ${resourceType} resources`);
}

/**
 * A `ResourceStore` over `db`, whose side tables exist (`createSideTables`). Writers of one row
 * exclude each other with the dialect's row lock (PostgreSQL) or write lock (SQLite).
 *
 * @example
 * const store = tableResourceStore(db, sqliteDialect, { organization: { column: "org_id" }, users });
 */
export function tableResourceStore(db: Kysely<SqlStoreDatabase>, dialect: SqlDialect, options: TableResourceStoreOptions): ResourceStore {
  const booleans = dialect.name === "sqlite" ? "integer" : "native";
  const now = options.now ?? (() => new Date().toISOString());
  const typeTable = (resourceType: string, mapping: TableMapping) => {
    const columns = mappedColumns(mapping);
    const children = childColumns(mapping);
    return { resourceType, mapping, columns, children, mapper: rowMapper(columns, booleans, children), meta: tableMeta(mapping, dialect) };
  };
  const users: TypeTable = typeTable("User", options.users);
  const { organization } = options;
  const tables = new Map<string, TypeTable>([["User", users]]);
  const groupMapping = options.groups;
  if (groupMapping) {
    tables.set("Group", {
      ...typeTable("Group", groupMapping),
      memberMapping: groupMapping.members,
      members: memberTable({
        mapping: groupMapping.members,
        groupIdKind: groupMapping.id.kind,
        users: {
          table: options.users.table,
          id: options.users.id.column,
          idKind: options.users.id.kind,
          ...("column" in organization ? { orgColumn: organization.column } : {}),
        },
        dialect,
      }),
    });
  }
  const groupsTable = tables.get("Group");

  /** The table of a type, or undefined for one the store does not serve. */
  const tableOf = (resourceType: string): TypeTable | undefined => tables.get(resourceType);

  /** Whether a request of organization `orgId` can see rows at all (a single-organization app keeps one). */
  const servesOrg = (orgId: string): boolean => !("fixed" in organization) || organization.fixed === orgId;

  const orgCondition = (orgId: string): Expression<SqlBool> =>
    "column" in organization ? sql<SqlBool>`${sql.ref(`${ROW}.${organization.column}`)} = ${sql.val(orgId)}` : sql<SqlBool>`1 = 1`;

  const idRef = (type: TypeTable): Expression<unknown> => sql.ref(`${ROW}.${type.mapping.id.column}`);

  const sourceFor = (type: TypeTable, scope: StoreScope) =>
    tableRowSource({
      columns: type.columns,
      idColumn: type.mapping.id.column,
      idKind: type.mapping.id.kind,
      ...(type.mapping.rest ? { restColumn: type.mapping.rest.column } : {}),
      orgId: scope.orgId,
      resourceType: scope.resourceType,
      booleans,
      children: type.children,
      ...(type.memberMapping ? { members: { ...type.memberMapping, memberIdKind: options.users.id.kind } } : {}),
      meta: type.meta,
    });

  const idTextOf = (type: TypeTable): Expression<unknown> =>
    type.mapping.id.kind === "text" ? idRef(type) : sql`cast(${idRef(type)} as text)`;

  /** `select` of rows with their meta, from the table aliased `t`, joined to `scimkit_table_meta` where it keeps some. */
  const selectRows = (type: TypeTable, scope: StoreScope, where: Expression<SqlBool>, tail: RawBuilder<unknown> = sql``) => {
    const { meta } = type;
    const join = meta.side
      ? sql`left join ${sql.table(TABLE_META)} as ${sql.id(META_ALIAS)} on ${sql.ref(`${META_ALIAS}.org_id`)} = ${sql.val(scope.orgId)} and ${sql.ref(
          `${META_ALIAS}.resource_type`,
        )} = ${sql.val(scope.resourceType)} and ${sql.ref(`${META_ALIAS}.id`)} = ${idTextOf(type)}`
      : sql``;
    return sql<Row>`select ${sql.ref(ROW)}.*, ${meta.version(ROW)} as scimkit_version, ${meta.created(ROW)} as scimkit_created, ${meta.lastModified(
      ROW,
    )} as scimkit_last_modified from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} ${join} where ${orgCondition(scope.orgId)} and ${where} ${tail}`;
  };

  const resourceOf = (type: TypeTable, row: Row, children?: Readonly<Record<string, readonly Row[]>>): StoredResource => {
    const restColumn = type.mapping.rest?.column;
    const stored = restColumn === undefined ? null : row[restColumn];
    const rest = stored === null || stored === undefined ? undefined : dialect.fromJson(stored);
    let attributes = type.mapper.attributesOf(row, rest, children);
    if (type.mapping.hooks?.fromRow) attributes = type.mapping.hooks.fromRow(attributes, row);
    return {
      id: String(row[type.mapping.id.column]),
      version: String(row["scimkit_version"] ?? 0),
      created: typeof row["scimkit_created"] === "string" ? row["scimkit_created"] : NEVER_WRITTEN,
      lastModified: typeof row["scimkit_last_modified"] === "string" ? row["scimkit_last_modified"] : NEVER_WRITTEN,
      attributes,
    };
  };

  const byId = (type: TypeTable, id: string | number): Expression<SqlBool> => sql<SqlBool>`${idRef(type)} = ${sql.val(id)}`;

  /** The resources of `rows`, with the rows of their child tables read in one query per table. */
  const resourcesOf = async (on: Kysely<SqlStoreDatabase>, type: TypeTable, rows: readonly Row[]): Promise<StoredResource[]> => {
    if (type.children.length === 0 || rows.length === 0) return rows.map((row) => resourceOf(type, row));
    const owners = rows.map((row) => row[type.mapping.id.column] as string | number);
    const byChild = await Promise.all(
      type.children.map(async (child) => [child.attribute, await readChildRows(on, dialect, child, owners)] as const),
    );
    return rows.map((row) => {
      const key = String(row[type.mapping.id.column]);
      return resourceOf(type, row, Object.fromEntries(byChild.map(([attribute, found]) => [attribute, found.get(key) ?? []])));
    });
  };

  const readOne = async (
    on: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    scope: StoreScope,
    id: string | number,
  ): Promise<StoredResource | undefined> => {
    const statement = byIdStatement(type);
    const parameters = statement.slots.map((slot) =>
      slot === ORG_SLOT ? scope.orgId : slot === TYPE_SLOT ? scope.resourceType : slot === ID_SLOT ? id : slot,
    );
    const rows = (await on.executeQuery<Row>(CompiledQuery.raw(statement.text, parameters))).rows;
    return (await resourcesOf(on, type, rows))[0];
  };

  /**
   * `readOne`'s statement, compiled once per type: a GET is the request identity providers make
   * most, and building its SQL anew each time cost about as much as SQLite takes to run it. Compiled
   * with placeholder values, each parameter is then the request's organization, type or id, or a
   * constant.
   */
  const byIdStatements = new Map<TypeTable, { readonly text: string; readonly slots: readonly unknown[] }>();
  const byIdStatement = (type: TypeTable) => {
    let statement = byIdStatements.get(type);
    if (statement === undefined) {
      const compiled = selectRows(type, { orgId: ORG_SLOT, resourceType: TYPE_SLOT }, byId(type, ID_SLOT)).compile(db);
      statement = { text: compiled.sql, slots: compiled.parameters };
      byIdStatements.set(type, statement);
    }
    return statement;
  };

  /** Makes the child tables hold the elements of `attributes` for row `id`. */
  const writeChildren = async (
    trx: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    id: string | number,
    attributes: ScimObject,
  ): Promise<void> => {
    if (type.children.length === 0) return;
    const { children } = type.mapper.rowOf(attributes);
    for (const child of type.children) await replaceChildRows(trx, child, id, children[child.attribute] ?? []);
  };

  /** Locks the row of `id` for the rest of the transaction; false when there is none. */
  const lockRow = async (
    trx: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    scope: StoreScope,
    id: string | number,
    lock: RowLock,
  ): Promise<boolean> => {
    const clause = dialect.rowLock(lock) ?? sql``;
    const found =
      await sql`select 1 as found from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} where ${orgCondition(scope.orgId)} and ${byId(
        type,
        id,
      )} ${clause}`.execute(trx);
    return found.rows.length > 0;
  };

  /** The row's columns for `attributes`, through the mapping and the `toRow` hook. */
  const rowValues = async (
    trx: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    attributes: ScimObject,
    fixed: Readonly<Record<string, ColumnValue>>,
  ): Promise<Record<string, ColumnValue>> => {
    const { columns, rest } = type.mapper.rowOf(attributes);
    const restColumn = type.mapping.rest?.column;
    const row: Record<string, ColumnValue> = {
      ...columns,
      ...(restColumn === undefined ? {} : { [restColumn]: dialect.toJson(rest) as ColumnValue }),
      ...fixed,
    };
    return type.mapping.hooks?.toRow ? { ...(await type.mapping.hooks.toRow(row, attributes, trx)) } : row;
  };

  /** Runs a statement on the application's table, its constraint violations the client's errors (`constraintViolation`). */
  const onTable = async <T>(type: TypeTable, statement: () => Promise<T>): Promise<T> => {
    try {
      return await statement();
    } catch (error) {
      const attributeOf = (column: string): string | undefined =>
        type.columns.all.find((mapped) => mapped.column === column)?.location.join(".");
      throw constraintViolation(error, type.mapping.table, attributeOf) ?? error;
    }
  };

  const insertKey = async (trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string, key: UniqueKey): Promise<boolean> => {
    // Skipped on a clash rather than raised: PostgreSQL would abort the transaction on the error.
    const inserted = await sql`insert into ${sql.table(TABLE_KEYS)} (org_id, resource_type, attribute, value, id) values (${sql.val(
      scope.orgId,
    )}, ${sql.val(scope.resourceType)}, ${sql.val(key.attribute)}, ${sql.val(key.value)}, ${sql.val(id)}) on conflict do nothing`.execute(
      trx,
    );
    return (inserted.numAffectedRows ?? 0n) > 0n;
  };

  /**
   * Claims `keys` for `id`. A key whose holder's row is gone — the application deleted it with its
   * own code — is released and claimed, so a name is never held by a resource that no longer exists.
   */
  const claimKeys = async (
    trx: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    scope: StoreScope,
    id: string,
    keys: readonly UniqueKey[],
  ): Promise<void> => {
    for (const key of keys) {
      if (await insertKey(trx, scope, id, key)) continue;
      const holder = await sql<{
        readonly id: string;
      }>`select id from ${sql.table(TABLE_KEYS)} where org_id = ${sql.val(scope.orgId)} and resource_type = ${sql.val(
        scope.resourceType,
      )} and attribute = ${sql.val(key.attribute)} and value = ${sql.val(key.value)}`.execute(trx);
      const holderId = holder.rows[0]?.id;
      const parameter = holderId === undefined ? undefined : idOf(type, holderId);
      // A holder with this very id is a row the application deleted whose id the database reused.
      const alive = holderId !== id && parameter !== undefined && (await lockRow(trx, type, scope, parameter, "reference"));
      if (alive || holderId === undefined) throw uniquenessError(key.attribute);
      await releaseKeys(trx, scope, holderId);
      await deleteMeta(trx, scope, holderId);
      if (!(await insertKey(trx, scope, id, key))) throw uniquenessError(key.attribute);
    }
  };

  /**
   * Refuses `keys` another row of the table holds in its own column, compared as the key is
   * (`foldedColumnEquality`): a row the application wrote itself has no key in `scimkit_table_keys`,
   * and "Ada@Example.com" there is the same `userName` as "ada@example.com" (RFC 7643 §4.1.1).
   * `self` is the row being written, and `kept` what it holds already: a key it keeps is never
   * refused, so a user the application duplicated before can still be written (deprovisioned).
   */
  const refuseColumnClash = async (
    trx: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    scope: StoreScope,
    keys: readonly UniqueKey[],
    self?: { readonly id: string | number; readonly kept: ScimObject },
  ): Promise<void> => {
    for (const key of keys) {
      const location = locationOfKey(key.attribute);
      const mapped = type.columns.at(location);
      if (!mapped || mapped.toColumn || mapped.type !== "string") continue;
      const caseExact = key.caseExact === true;
      const held = self === undefined ? undefined : valueAt(self.kept, location);
      if (typeof held === "string" && uniqueValue(held, caseExact) === key.value) continue;
      const column = sql.ref(`${ROW}.${mapped.column}`);
      const others = self === undefined ? sql`` : sql` and ${idRef(type)} <> ${sql.val(self.id)}`;
      const clash = await sql`select 1 as found from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} where ${orgCondition(
        scope.orgId,
      )} and ${foldedColumnEquality(dialect, column, key.value, caseExact)}${others} limit 1`.execute(trx);
      if (clash.rows.length > 0) throw uniquenessError(key.attribute);
    }
  };

  const releaseKeys = (trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string) =>
    sql`delete from ${sql.table(TABLE_KEYS)} where org_id = ${sql.val(scope.orgId)} and resource_type = ${sql.val(scope.resourceType)} and id = ${sql.val(
      id,
    )}`.execute(trx);

  const deleteMeta = (trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string) =>
    sql`delete from ${sql.table(TABLE_META)} where org_id = ${sql.val(scope.orgId)} and resource_type = ${sql.val(scope.resourceType)} and id = ${sql.val(
      id,
    )}`.execute(trx);

  const writeMeta = (
    trx: Kysely<SqlStoreDatabase>,
    scope: StoreScope,
    id: string,
    version: number,
    created: string,
    lastModified: string,
  ) =>
    sql`insert into ${sql.table(TABLE_META)} (org_id, resource_type, id, version, created, last_modified) values (${sql.val(scope.orgId)}, ${sql.val(
      scope.resourceType,
    )}, ${sql.val(id)}, ${sql.val(version)}, ${sql.val(created)}, ${sql.val(lastModified)})
      on conflict (org_id, resource_type, id) do update set version = excluded.version, last_modified = excluded.last_modified`.execute(
      trx,
    );

  /** A write to `id` without knowing its version: one more than the stored one (1 for a row the application wrote). */
  const bumpMeta = (trx: Kysely<SqlStoreDatabase>, scope: StoreScope, id: string, now: string) =>
    sql`insert into ${sql.table(TABLE_META)} (org_id, resource_type, id, version, created, last_modified) values (${sql.val(scope.orgId)}, ${sql.val(
      scope.resourceType,
    )}, ${sql.val(id)}, 1, ${sql.val(now)}, ${sql.val(now)})
      on conflict (org_id, resource_type, id) do update set version = ${sql.table(TABLE_META)}.version + 1, last_modified = excluded.last_modified`.execute(
      trx,
    );

  /** Sets the version and times the application's row keeps, on a write that changes no mapped column. */
  const setRowMeta = async (
    trx: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    scope: StoreScope,
    id: string | number,
    version: number,
    at: string,
  ): Promise<void> => {
    const values = type.meta.rowValues({ version, lastModified: at });
    // A row keeping only its creation time has nothing to set.
    if (Object.keys(values).length === 0) return;
    await sql`update ${sql.table(type.mapping.table)} as ${sql.id(ROW)} set ${sql.join(
      Object.entries(values).map(([name, value]) => sql`${sql.id(name)} = ${sql.val(value)}`),
    )} where ${orgCondition(scope.orgId)} and ${byId(type, id)}`.execute(trx);
  };

  /** A write to group `id` the group's own writer did not make (a member deleted): a new version and time, wherever kept. */
  const bumpGroup = async (trx: Kysely<SqlStoreDatabase>, type: TypeTable, scope: StoreScope, id: string, at: string): Promise<void> => {
    if (type.meta.side) await bumpMeta(trx, scope, id, at);
    const set = type.meta.bump(ROW, at);
    const parameter = idOf(type, id);
    if (set.length === 0 || parameter === undefined) return;
    await sql`update ${sql.table(type.mapping.table)} as ${sql.id(ROW)} set ${sql.join(
      set.map(([name, value]) => sql`${sql.id(name)} = ${value}`),
    )} where ${orgCondition(scope.orgId)} and ${byId(type, parameter)}`.execute(trx);
  };

  /** The resource with its members, when the request asks for them and its type has a member list. */
  const withMembers = async (
    trx: Kysely<SqlStoreDatabase>,
    type: TypeTable,
    resource: StoredResource,
    wanted: boolean,
  ): Promise<StoredResource> => {
    if (!wanted || !type.members) return resource;
    const members = (await type.members.read(trx, [resource.id])).get(resource.id) ?? [];
    return { ...resource, members };
  };

  /** The typed id parameter of a request, or undefined when no row can have it. */
  const idOf = (type: TypeTable, id: string): string | number | undefined => idParameter(id, type.mapping.id.kind);

  const translated = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      throw dialect.translateError ? dialect.translateError(error) : error;
    }
  };

  /**
   * Deletes every row of organization `orgId` from the application's tables — members, child rows,
   * groups, users — and the side rows, in one transaction; only where rows carry an organization
   * column (a single-organization application would lose all its data).
   */
  const deleteOrganization = async (orgId: string): Promise<number> =>
    translated(() =>
      dialect.writeTransaction(db, async (trx) => {
        if (!("column" in organization)) return 0;
        const inOrg = (type: TypeTable) =>
          sql`select ${sql.id(type.mapping.id.column)} from ${sql.table(type.mapping.table)} where ${sql.id(organization.column)} = ${sql.val(orgId)}`;
        let deleted = 0;
        // Groups first: their member rows reference users.
        for (const type of [groupsTable, users]) {
          if (!type) continue;
          if (type.memberMapping) {
            await sql`delete from ${sql.table(type.memberMapping.table)} where ${sql.id(type.memberMapping.group)} in (${inOrg(type)})`.execute(
              trx,
            );
          }
          if (type === users && groupsTable?.memberMapping) {
            const members = groupsTable.memberMapping;
            await sql`delete from ${sql.table(members.table)} where ${sql.id(members.member)} in (${inOrg(type)})`.execute(trx);
          }
          for (const child of type.children) {
            await sql`delete from ${sql.table(child.mapping.table)} where ${sql.id(child.mapping.owner)} in (${inOrg(type)})`.execute(trx);
          }
          const removed =
            await sql`delete from ${sql.table(type.mapping.table)} where ${sql.id(organization.column)} = ${sql.val(orgId)}`.execute(trx);
          deleted += Number(removed.numAffectedRows ?? 0n);
        }
        await sql`delete from ${sql.table(TABLE_KEYS)} where org_id = ${sql.val(orgId)}`.execute(trx);
        await sql`delete from ${sql.table(TABLE_META)} where org_id = ${sql.val(orgId)}`.execute(trx);
        return deleted;
      }),
    );

  return {
    capabilities: {
      sort: true,
      cursor: true,
      groups: groupsTable !== undefined,
      // Two tables number their rows apart, so an integer or text id may name a user and a team.
      idsUniqueAcrossTypes: options.groups === undefined || (options.users.id.kind === "uuid" && options.groups.id.kind === "uuid"),
    },
    ...("column" in organization ? { deleteOrganization } : {}),

    create(request) {
      const type = tableOf(request.resourceType);
      if (!type || (request.members !== undefined && !type.members)) return Promise.reject(notServed(request.resourceType));
      if (!servesOrg(request.orgId)) return Promise.reject(notServed(`organization ${request.orgId}'s`));
      return translated(() =>
        dialect.writeTransaction(db, async (trx): Promise<WriteResult> => {
          // Members first, the group second: the lock order every writer follows.
          const known =
            request.members?.length && type.members
              ? await type.members.knownUsers(trx, request.orgId, request.members)
              : new Set<string>();
          const membership: MembershipPlan | undefined =
            request.members === undefined
              ? undefined
              : planMembership(new Set(), { kind: "delta", add: request.members, remove: [] }, (id) => known.has(id));
          if (membership && request.unknownMembers === "reject" && membership.ignored.length > 0)
            throw unknownMembersError(membership.ignored);
          const fixed: Record<string, ColumnValue> = {};
          if ("column" in organization) fixed[organization.column] = request.orgId;
          // The core's id (a UUID v7) where the table takes one; an integer key is the database's to assign.
          if (type.mapping.id.kind !== "integer") fixed[type.mapping.id.column] = request.id;
          Object.assign(fixed, type.meta.rowValues({ version: 1, created: request.now, lastModified: request.now }));
          await refuseColumnClash(trx, type, request, request.uniqueKeys);
          const row = await rowValues(trx, type, request.attributes, fixed);
          // Columns without a value are left out, so the application's defaults apply (`is_active default 1`).
          const names = Object.keys(row).filter((name) => row[name] !== null);
          const inserted = await onTable(type, () =>
            sql<{
              readonly id: unknown;
            }>`insert into ${sql.table(type.mapping.table)} (${sql.join(names.map((name) => sql.id(name)))}) values (${sql.join(
              names.map((name) => sql.val(row[name])),
            )}) returning ${sql.id(type.mapping.id.column)} as id`.execute(trx),
          );
          const id = String(inserted.rows[0]?.id);
          const assigned = inserted.rows[0]?.id;
          if (typeof assigned === "string" || typeof assigned === "number") await writeChildren(trx, type, assigned, request.attributes);
          // Side rows left by an earlier row of this id, which the application deleted itself and
          // whose id the database reused (SQLite without AUTOINCREMENT does), belong to no one now.
          await releaseKeys(trx, request, id);
          if (type.meta.side) await deleteMeta(trx, request, id);
          await claimKeys(trx, type, request, id, request.uniqueKeys);
          if (type.meta.side) await writeMeta(trx, request, id, 1, request.now, request.now);
          const parameter = idOf(type, id);
          const resource = parameter === undefined ? undefined : await readOne(trx, type, request, parameter);
          if (!resource) throw new Error(`tableStore: the row just inserted into ${type.mapping.table} as ${id} cannot be read back`);
          if (!membership || !type.members) return { resource };
          await type.members.add(trx, id, membership.added);
          // CreateRequest has no `members` flag: a create that gives members gets them back.
          return { resource: await withMembers(trx, type, resource, true), membership };
        }),
      );
    },

    get(request) {
      const type = tableOf(request.resourceType);
      const id = type && idOf(type, request.id);
      if (!type || id === undefined || !servesOrg(request.orgId)) return Promise.resolve(undefined);
      if (!request.members || !type.members) return translated(() => readOne(db, type, request, id));
      return translated(() =>
        dialect.readTransaction(db, async (trx) => {
          const resource = await readOne(trx, type, request, id);
          return resource && withMembers(trx, type, resource, true);
        }),
      );
    },

    async list(request): Promise<ListResult> {
      const type = tableOf(request.resourceType);
      if (!type || !servesOrg(request.orgId)) return { totalResults: 0, resources: [] };
      const { filter, sort, page } = request;
      const context = { dialect, resource: ROW, source: sourceFor(type, request) } as const;
      // Compiled before any statement: a path the table does not keep is a 400 now, not a scan.
      const where = filter ? compileFilterSql(filter, context) : sql<SqlBool>`1 = 1`;
      const order = orderBySql(sort, context);
      const after = page.kind === "cursor" && page.after ? keysetAfterSql(sort, page.after, context) : sql<SqlBool>`1 = 1`;
      const read = async (on: Kysely<SqlStoreDatabase>): Promise<ListResult> => {
        const count = async (): Promise<number> => {
          const counted = await sql<{
            readonly total: unknown;
          }>`select count(*) as total from (${selectRows(type, request, where)}) as counted`.execute(on);
          return Number(counted.rows[0]?.total ?? 0);
        };
        if (page.count <= 0) return { totalResults: request.countTotal === false ? -1 : await count(), resources: [] };
        const offset = page.kind === "index" ? Math.max(1, page.startIndex) - 1 : 0;
        // Cast, because better-sqlite3 binds a number as a REAL, and SQLite then sorts the page without its
        // top-N shortcut: a `userName eq` took three times as long. The text stays one prepared statement.
        const tail = sql`order by ${sql.join(order)} limit cast(${sql.val(page.count)} as integer) offset cast(${sql.val(offset)} as integer)`;
        const rows = (await selectRows(type, request, sql<SqlBool>`${where} and ${after}`, tail).execute(on)).rows;
        const totalResults = request.countTotal === false ? -1 : (totalFromPage(page, rows.length) ?? (await count()));
        const resources = await resourcesOf(on, type, rows);
        if (!request.members || !type.members) return { totalResults, resources };
        const members = await type.members.read(
          on,
          resources.map((resource) => resource.id),
        );
        return { totalResults, resources: resources.map((resource) => ({ ...resource, members: members.get(resource.id) ?? [] })) };
      };
      // Child rows and members are read in the page's snapshot, so they agree with it even while
      // others write; a page of the table's own rows alone needs no transaction (as in the SQL store).
      const rowsOnly = type.children.length === 0 && !(request.members && type.members);
      return translated(() => (rowsOnly ? read(db) : dialect.readTransaction(db, read)));
    },

    update(request) {
      const type = tableOf(request.resourceType);
      const id = type && idOf(type, request.id);
      if (!type || id === undefined || !servesOrg(request.orgId)) return Promise.resolve(undefined);
      const delta = request.membership;
      const members = type.members;
      if (delta && !members) return Promise.reject(notServed(`member lists of ${request.resourceType}`));
      return translated(() =>
        dialect.writeTransaction(db, async (trx): Promise<WriteResult | undefined> => {
          // Members first, the group second: the lock order every writer follows.
          const adding = delta === undefined ? [] : delta.kind === "replace" ? delta.ids : delta.add;
          const known = adding.length > 0 && members ? await members.knownUsers(trx, request.orgId, adding) : new Set<string>();
          if (!(await lockRow(trx, type, request, id, "update"))) return undefined;
          const current = await readOne(trx, type, request, id);
          if (!current) return undefined;
          // RFC 7644 §3.14: a failed precondition is 412, and nothing is written.
          if (request.expectedVersion !== undefined && request.expectedVersion !== current.version) throw preconditionFailedError();
          const { attributes } = request;
          // What the mapping keeps of the new attributes, deep-equal to what is stored, is no write.
          const attributesChange =
            attributes !== undefined &&
            (type.mapping.hooks?.toRow !== undefined ||
              !deepEqual(type.mapper.kept(attributes, type.mapping.rest !== undefined), current.attributes));
          const version = Number(current.version) + 1;
          if (attributesChange) {
            await refuseColumnClash(trx, type, request, request.uniqueKeys ?? [], { id, kept: current.attributes });
            const row = await rowValues(trx, type, attributes, type.meta.rowValues({ version, lastModified: request.now }));
            const names = Object.keys(row);
            await onTable(type, () =>
              sql`update ${sql.table(type.mapping.table)} as ${sql.id(ROW)} set ${sql.join(
                names.map((name) => sql`${sql.id(name)} = ${sql.val(row[name])}`),
              )} where ${orgCondition(request.orgId)} and ${byId(type, id)}`.execute(trx),
            );
            await writeChildren(trx, type, id, attributes);
            await releaseKeys(trx, request, current.id);
            await claimKeys(trx, type, request, current.id, request.uniqueKeys ?? []);
          }
          let membership: MembershipPlan | undefined;
          if (delta && members) {
            // A delta reads only the ids it names; a replacement reads the ids it may remove.
            const named = delta.kind === "delta" ? [...delta.add, ...delta.remove] : undefined;
            membership = planMembership(await members.current(trx, current.id, named), delta, (memberId) => known.has(memberId));
            if (request.unknownMembers === "reject" && membership.ignored.length > 0) throw unknownMembersError(membership.ignored);
            await members.remove(trx, current.id, membership.removed);
            await members.add(trx, current.id, membership.added);
          }
          const membersChange = membership !== undefined && changesMembers(membership);
          if (type.meta.side && (attributesChange || membersChange)) {
            const created = current.created === NEVER_WRITTEN ? request.now : current.created;
            await writeMeta(trx, request, current.id, version, created, request.now);
          }
          // A change of members alone is still a write of the group (RFC 7644 §3.14: a new ETag).
          if (membersChange && !attributesChange) await setRowMeta(trx, type, request, id, version, request.now);
          const read = await readOne(trx, type, request, id);
          if (!read) return undefined;
          const resource = await withMembers(trx, type, read, request.members);
          return membership ? { resource, membership } : { resource };
        }),
      );
    },

    delete(request) {
      const type = tableOf(request.resourceType);
      const id = type && idOf(type, request.id);
      if (!type || id === undefined || !servesOrg(request.orgId)) return Promise.resolve(false);
      return translated(() =>
        dialect.writeTransaction(db, async (trx) => {
          if (!(await lockRow(trx, type, request, id, "delete"))) return false;
          if (request.expectedVersion !== undefined) {
            const current = await readOne(trx, type, request, id);
            if (current?.version !== request.expectedVersion) throw preconditionFailedError();
          }
          await releaseKeys(trx, request, request.id);
          if (type.members) await type.members.forget(trx, "group", request.id);
          for (const child of type.children) await deleteChildRows(trx, child, id);
          if (type === users && groupsTable?.members) {
            // A lost member is a write to the group: its ETag must change (RFC 7644 §3.14).
            const groupScope = { orgId: request.orgId, resourceType: "Group" };
            for (const groupId of await groupsTable.members.groupsOf(trx, request.id))
              await bumpGroup(trx, groupsTable, groupScope, groupId, request.now ?? now());
            await groupsTable.members.forget(trx, "member", request.id);
          }
          await sql`delete from ${sql.table(type.mapping.table)} as ${sql.id(ROW)} where ${orgCondition(request.orgId)} and ${byId(type, id)}`.execute(
            trx,
          );
          if (type.meta.side) await deleteMeta(trx, request, request.id);
          return true;
        }),
      );
    },
  };
}
