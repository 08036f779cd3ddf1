/**
 * A corpus of hostile requests for the analytics routes that read a body or a query: malformed and
 * non-object bodies, wrong media types, empty bodies, deep nesting (10,000 levels), huge strings
 * (5 MB within the body limit, 7 MB beyond it), prototype-pollution keys at every level, invalid
 * UTF-8, NUL bytes, overflowing numbers, duplicate keys, and absurd `limit`, `cursor` and filter
 * values.
 *
 * Each entry lists its right answers as `"status type"` (the problem type after `/problems/`), or a
 * bare success status. Entries aimed at the sealed fixtures (`{orgA}`, `{adminA}`) must never
 * write; the ones that may legitimately succeed address the scratch organization and admin user
 * (`{scratchOrg}`, `{scratchAdmin}`) or create something new, which the replay leaves out of what
 * it compares.
 */

/** One hostile request, relative to the analytics base. */
export interface HostileAnalyticsRequest {
  readonly name: string;
  readonly method: "GET" | "POST" | "PATCH";
  /**
   * Below `/analytics/v1`. `{orgA}`, `{scratchOrg}`, `{adminA}`, `{scratchAdmin}`, `{campaignA}` and
   * `{simulationA}` stand for fixture ids; `{adminUsersCursor}` for a valid cursor of
   * `GET /admin-users?limit=1`, and `{organizationsCursor}` for one of `GET /organizations?limit=1`.
   */
  readonly path: string;
  /** The caller: the operator key (default), or no key at all (a public route). */
  readonly key?: "operator" | "none";
  /** The Content-Type sent with the body; default `application/json`. */
  readonly contentType?: string;
  readonly body?: string | Buffer;
  /** The right answers, as `"status type"` for problems or `"status"` for successes. */
  readonly answers: readonly string[];
}

/** The body limit the replaying router is configured with: 5 MB fits, 7 MB does not. */
export const HOSTILE_BODY_LIMIT = "6mb";

const FIVE_MB = "x".repeat(5 * 1024 * 1024);
const SEVEN_MB = "x".repeat(7 * 1024 * 1024);
const DEEP = 10_000;

/** `depth` levels of `{"a": …}` around `inner` (JSON text). */
const deepObject = (depth: number, inner = "1"): string => `${'{"a":'.repeat(depth)}${inner}${"}".repeat(depth)}`;
/** `depth` levels of `[…]` around `inner` (JSON text). */
const deepArray = (depth: number, inner = ""): string => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

/** The three prototype-polluting keys as members (JSON text: a literal would set the prototype). */
const PROTO_MEMBERS = '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}';
const PROTO = `{${PROTO_MEMBERS}}`;

/** A JSON object from raw member texts, so that members may repeat, hold `__proto__` or overflow. */
const object = (...members: readonly string[]): string => `{${members.join(",")}}`;
const text = (value: string): string => JSON.stringify(value);

/** Bytes of a body with invalid UTF-8 (a lone continuation byte, then 0xFF) spliced between two JSON texts. */
const withInvalidUtf8 = (before: string, after: string): Buffer =>
  Buffer.concat([Buffer.from(before, "utf8"), Buffer.from([0x80, 0xff]), Buffer.from(after, "utf8")]);

const INVALID = "400 invalid-request";
const MALFORMED = "400 malformed-request";
const UNSUPPORTED = "415 unsupported-media-type";
const TOO_LARGE = "413 payload-too-large";
const INVALID_CURSOR = "400 invalid-cursor";

/** The hostile bodies every JSON write shares; `member` is one valid-looking member of the route's body. */
function bodyCorpus(route: string, method: "POST" | "PATCH", path: string, member: string, key?: "none"): HostileAnalyticsRequest[] {
  const entry = (name: string, body: string | Buffer, answers: readonly string[], contentType?: string): HostileAnalyticsRequest => ({
    name: `${route}: ${name}`,
    method,
    path,
    body,
    answers,
    ...(contentType === undefined ? {} : { contentType }),
    ...(key === undefined ? {} : { key }),
  });
  return [
    entry("truncated JSON", `{${member}`, [MALFORMED]),
    entry("not JSON at all", "this is not json", [MALFORMED]),
    entry("an object nested 10,000 deep", deepObject(DEEP), [INVALID]),
    entry("an array nested 10,000 deep", deepArray(DEEP), [INVALID]),
    entry("a member nested 10,000 deep", object(member, `"extra":${deepObject(DEEP)}`), [INVALID]),
    entry("nesting 10,000 deep left unclosed", '{"a":'.repeat(DEEP), [MALFORMED]),
    entry("a 5 MB string member", object(member, `"extra":${text(FIVE_MB)}`), [INVALID]),
    entry("a 5 MB key", object(member, `${text(FIVE_MB)}:1`), [INVALID]),
    entry("a 7 MB body, beyond the limit", object(member, `"extra":${text(SEVEN_MB)}`), [TOO_LARGE]),
    entry("prototype keys at the top", object(member, PROTO_MEMBERS), [INVALID]),
    entry("prototype keys alone", PROTO, [INVALID]),
    entry("prototype keys one level down", object(member, `"nested":${PROTO}`), [INVALID]),
    entry("prototype keys 100 levels down", object(member, `"nested":${deepObject(100, PROTO)}`), [INVALID]),
    entry("prototype keys inside an array", object(member, `"list":[${PROTO},[${PROTO}]]`), [INVALID]),
    entry("a NUL byte in a key", object(member, '"na\\u0000me":"x"'), [INVALID]),
    entry("a raw NUL byte in the text", `{${member},\u0000}`, [MALFORMED]),
    entry("an overflowing number", object(member, '"extra":1e400'), [INVALID]),
    entry("a 400-digit integer", object(member, `"extra":${"9".repeat(400)}`), [INVALID]),
    entry("invalid UTF-8 in an unknown member", withInvalidUtf8(`{${member},"extra":"`, '"}'), [INVALID]),
    entry("an array instead of an object", `[{${member}}]`, [INVALID]),
    entry("null instead of an object", "null", [MALFORMED]),
    entry("a string instead of an object", text("{}"), [MALFORMED]),
    entry("a number instead of an object", "42", [MALFORMED]),
    entry("an empty body", "", [INVALID]),
    entry("whitespace only", "   \n", [MALFORMED]),
    entry("text/plain", `{${member}}`, [UNSUPPORTED], "text/plain"),
    entry("form-encoded", "name=x", [UNSUPPORTED], "application/x-www-form-urlencoded"),
    entry("application/scim+json", `{${member}}`, [UNSUPPORTED], "application/scim+json"),
    entry("multipart", "--b\r\n\r\n{}\r\n--b--", [UNSUPPORTED], "multipart/form-data; boundary=b"),
    entry("an unknown charset", `{${member}}`, [UNSUPPORTED], "application/json; charset=klingon"),
    entry("latin1", `{${member}}`, [UNSUPPORTED], "application/json; charset=latin1"),
  ];
}

/** Absurd `limit` and `cursor` values and hostile filters for the list at `path` (which may carry a query already). */
function queryCorpus(route: string, path: string, foreignCursor = "{adminUsersCursor}"): HostileAnalyticsRequest[] {
  const join = path.includes("?") ? "&" : "?";
  const get = (name: string, query: string, answers: readonly string[]): HostileAnalyticsRequest => ({
    name: `${route}: ${name}`,
    method: "GET",
    path: `${path}${join}${query}`,
    answers,
  });
  return [
    get("limit=0", "limit=0", [INVALID]),
    get("limit=-1", "limit=-1", [INVALID]),
    get("limit=1001", "limit=1001", [INVALID]),
    get("limit=1e400", "limit=1e400", [INVALID]),
    get("a 30-digit limit", `limit=${"9".repeat(30)}`, [INVALID]),
    get("limit=9007199254740993", "limit=9007199254740993", [INVALID]),
    get("limit=NaN", "limit=NaN", [INVALID]),
    get("limit=Infinity", "limit=Infinity", [INVALID]),
    get("limit=0x10", "limit=0x10", [INVALID]),
    get("limit=1.5", "limit=1.5", [INVALID]),
    get("an empty limit", "limit=", [INVALID]),
    get("a NUL limit", "limit=%00", [INVALID]),
    get("limit given twice", "limit=1&limit=2", [INVALID]),
    get("limit as an array", "limit[]=1", [INVALID]),
    get("a cursor of garbage", "cursor=garbage", [INVALID_CURSOR]),
    get("a NUL cursor", "cursor=%00", [INVALID_CURSOR]),
    get("a cursor of 4,097 characters", `cursor=${"c".repeat(4097)}`, [INVALID]),
    get("a cursor of 4,096 characters", `cursor=${"c".repeat(4096)}`, [INVALID_CURSOR]),
    get("another list's cursor", `cursor=${foreignCursor}`, [INVALID_CURSOR]),
    get("a valid cursor with a character appended", `cursor=${foreignCursor}x`, [INVALID_CURSOR]),
    get("cursor given twice", "cursor=a&cursor=b", [INVALID]),
    get("a __proto__ parameter", "__proto__=x", [INVALID]),
    get("a __proto__[polluted] parameter", "__proto__[polluted]=1", [INVALID]),
    get("a constructor[prototype][polluted] parameter", "constructor[prototype][polluted]=1", [INVALID]),
    get("a prototype parameter", "prototype=1", [INVALID]),
    get("a broken %-escape", "cursor=%E0%A4%A", [INVALID_CURSOR]),
  ];
}

const ORG_NAME = '"name":"Hostile"';
const INVITE = '"email":"hostile@example.com","role":"viewer","organizationIds":["{scratchOrg}"]';

/** Every hostile request. */
export const analyticsHostileCorpus: readonly HostileAnalyticsRequest[] = [
  // Creating organizations: nothing hostile may create one, but plain duplicates may.
  ...bodyCorpus("POST /organizations", "POST", "/organizations", ORG_NAME),
  {
    name: "POST /organizations: a 5 MB name",
    method: "POST",
    path: "/organizations",
    body: object(`"name":${text(FIVE_MB)}`),
    answers: [INVALID],
  },
  {
    name: "POST /organizations: an overflowing number as the name",
    method: "POST",
    path: "/organizations",
    body: '{"name":1e400}',
    answers: [INVALID],
  },
  {
    name: "POST /organizations: a name of a NUL byte",
    method: "POST",
    path: "/organizations",
    body: '{"name":"\\u0000"}',
    answers: [INVALID],
  },
  {
    name: "POST /organizations: duplicate keys, the last valid",
    method: "POST",
    path: "/organizations",
    body: '{"name":"","name":"Duplicate"}',
    answers: ["201"],
  },
  {
    name: "POST /organizations: duplicate keys, the last invalid",
    method: "POST",
    path: "/organizations",
    body: '{"name":"Fine","name":""}',
    answers: [INVALID],
  },
  {
    name: "POST /organizations: an object as the name",
    method: "POST",
    path: "/organizations",
    body: `{"name":${PROTO}}`,
    answers: [INVALID],
  },
  {
    name: "POST /organizations: invalid UTF-8 in the name",
    method: "POST",
    path: "/organizations",
    body: withInvalidUtf8('{"name":"Bad', '"}'),
    answers: ["201", INVALID],
  },

  // Changing the sealed organization: nothing may change it.
  ...bodyCorpus("PATCH /organizations/{id}", "PATCH", "/organizations/{orgA}", '"name":"Hostile"'),
  { name: "PATCH /organizations/{id}: an empty object", method: "PATCH", path: "/organizations/{orgA}", body: "{}", answers: [INVALID] },
  {
    name: "PATCH /organizations/{id}: duplicate keys, the last invalid",
    method: "PATCH",
    path: "/organizations/{orgA}",
    body: '{"name":"Fine","name":""}',
    answers: [INVALID],
  },
  {
    name: "PATCH /organizations/{id}: a status of __proto__",
    method: "PATCH",
    path: "/organizations/{orgA}",
    body: '{"status":"__proto__"}',
    answers: [INVALID],
  },
  {
    name: "PATCH /organizations/{id}: a broken %-escape in the id",
    method: "PATCH",
    path: "/organizations/%E0%A4%A",
    body: '{"name":"x"}',
    answers: [MALFORMED],
  },
  {
    name: "PATCH /organizations/{id}: a NUL id",
    method: "PATCH",
    path: "/organizations/%00",
    body: '{"name":"x"}',
    answers: ["404 not-found"],
  },
  {
    name: "PATCH /organizations/{id}: the scratch one, duplicate keys, the last valid",
    method: "PATCH",
    path: "/organizations/{scratchOrg}",
    body: '{"name":"","name":"Renamed"}',
    answers: ["200"],
  },

  // Inviting admin users (only ever into the scratch organization).
  ...bodyCorpus("POST /admin-users/invite", "POST", "/admin-users/invite", INVITE),
  {
    name: "POST /admin-users/invite: a 5 MB e-mail",
    method: "POST",
    path: "/admin-users/invite",
    body: object(`"email":${text(`${FIVE_MB}@example.com`)}`, '"role":"viewer"', '"organizationIds":["{scratchOrg}"]'),
    answers: [INVALID],
  },
  {
    name: "POST /admin-users/invite: organizationIds nested 10,000 deep",
    method: "POST",
    path: "/admin-users/invite",
    body: object('"email":"deep@example.com"', '"role":"viewer"', `"organizationIds":${deepArray(DEEP, '"{scratchOrg}"')}`),
    answers: [INVALID],
  },
  {
    name: "POST /admin-users/invite: prototype keys as organizationIds",
    method: "POST",
    path: "/admin-users/invite",
    body: object('"email":"proto@example.com"', '"role":"viewer"', `"organizationIds":[${PROTO}]`),
    answers: [INVALID],
  },
  {
    name: "POST /admin-users/invite: a role of constructor",
    method: "POST",
    path: "/admin-users/invite",
    body: object('"email":"ctor@example.com"', '"role":"constructor"', '"organizationIds":["{scratchOrg}"]'),
    answers: [INVALID],
  },
  {
    name: "POST /admin-users/invite: a NUL byte in the e-mail",
    method: "POST",
    path: "/admin-users/invite",
    body: object('"email":"nul\\u0000@example.com"', '"role":"viewer"', '"organizationIds":["{scratchOrg}"]'),
    answers: [INVALID],
  },
  {
    name: "POST /admin-users/invite: the same organization twice",
    method: "POST",
    path: "/admin-users/invite",
    body: object('"email":"twice@example.com"', '"role":"viewer"', '"organizationIds":["{scratchOrg}","{scratchOrg}"]'),
    answers: [INVALID],
  },
  {
    name: "POST /admin-users/invite: an overflowing number as the role",
    method: "POST",
    path: "/admin-users/invite",
    body: object('"email":"num@example.com"', '"role":1e400', '"organizationIds":["{scratchOrg}"]'),
    answers: [INVALID],
  },
  {
    name: "POST /admin-users/invite: duplicate keys, the last valid",
    method: "POST",
    path: "/admin-users/invite",
    body: object('"email":"evil"', '"email":"duplicate@example.com"', '"role":"viewer"', '"organizationIds":["{scratchOrg}"]'),
    answers: ["201"],
  },

  // Changing the sealed admin user: nothing may change it.
  ...bodyCorpus("PATCH /admin-users/{id}", "PATCH", "/admin-users/{adminA}", '"role":"viewer"'),
  { name: "PATCH /admin-users/{id}: an empty object", method: "PATCH", path: "/admin-users/{adminA}", body: "{}", answers: [INVALID] },
  {
    name: "PATCH /admin-users/{id}: duplicate keys, the last invalid",
    method: "PATCH",
    path: "/admin-users/{adminA}",
    body: '{"role":"viewer","role":"owner"}',
    answers: [INVALID],
  },
  {
    name: "PATCH /admin-users/{id}: organizationIds of prototype keys",
    method: "PATCH",
    path: "/admin-users/{adminA}",
    body: `{"organizationIds":[${PROTO}]}`,
    answers: [INVALID],
  },
  {
    name: "PATCH /admin-users/{id}: 10,000 organizationIds",
    method: "PATCH",
    path: "/admin-users/{adminA}",
    body: `{"organizationIds":[${Array.from({ length: 10_000 }, () => '"{orgA}"').join(",")}]}`,
    answers: [INVALID],
  },
  {
    name: "PATCH /admin-users/{id}: a status of invited",
    method: "PATCH",
    path: "/admin-users/{adminA}",
    body: '{"status":"invited"}',
    answers: [INVALID],
  },
  {
    name: "PATCH /admin-users/{id}: the scratch one, duplicate keys, the last valid",
    method: "PATCH",
    path: "/admin-users/{scratchAdmin}",
    body: '{"role":"owner","role":"admin"}',
    answers: ["200"],
  },

  // Accepting invitations: public, so hostile bodies arrive without any key.
  ...bodyCorpus("POST /invitations/accept", "POST", "/invitations/accept", '"code":"hostile"', "none"),
  {
    name: "POST /invitations/accept: a 5 MB code",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: object(`"code":${text(FIVE_MB)}`),
    answers: [INVALID],
  },
  {
    name: "POST /invitations/accept: a code of 512 characters",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: object(`"code":${text("c".repeat(512))}`),
    answers: ["404 not-found"],
  },
  {
    name: "POST /invitations/accept: an empty code",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: '{"code":""}',
    answers: [INVALID],
  },
  {
    name: "POST /invitations/accept: a NUL code",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: '{"code":"\\u0000"}',
    answers: ["404 not-found"],
  },
  {
    name: "POST /invitations/accept: a code of __proto__",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: '{"code":"__proto__"}',
    answers: ["404 not-found"],
  },
  {
    name: "POST /invitations/accept: a code of constructor",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: '{"code":"constructor"}',
    answers: ["404 not-found"],
  },
  {
    name: "POST /invitations/accept: an object as the code",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: `{"code":${PROTO}}`,
    answers: [INVALID],
  },
  {
    name: "POST /invitations/accept: an overflowing number as the code",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: '{"code":1e400}',
    answers: [INVALID],
  },
  {
    name: "POST /invitations/accept: duplicate codes",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: '{"code":"one","code":"two"}',
    answers: ["404 not-found"],
  },
  {
    name: "POST /invitations/accept: invalid UTF-8 in the code",
    method: "POST",
    path: "/invitations/accept",
    key: "none",
    body: withInvalidUtf8('{"code":"', '"}'),
    answers: ["404 not-found"],
  },

  // Lists with hostile queries.
  ...queryCorpus("GET /organizations", "/organizations"),
  {
    name: "GET /organizations: another filter's cursor",
    method: "GET",
    path: "/organizations?status=active&cursor={organizationsCursor}",
    answers: [INVALID_CURSOR],
  },
  { name: "GET /organizations: status=__proto__", method: "GET", path: "/organizations?status=__proto__", answers: [INVALID] },
  { name: "GET /organizations: a NUL status", method: "GET", path: "/organizations?status=%00", answers: [INVALID] },
  ...queryCorpus("GET /admin-users", "/admin-users", "{organizationsCursor}"),
  { name: "GET /admin-users: role=constructor", method: "GET", path: "/admin-users?role=constructor", answers: [INVALID] },
  // Organization ids are any text up to 256 characters (a host may register `demo`) but NUL, which PostgreSQL cannot hold.
  { name: "GET /admin-users: a NUL organizationId", method: "GET", path: "/admin-users?organizationId=%00", answers: [INVALID] },
  {
    name: "GET /admin-users: an organizationId of 257 characters",
    method: "GET",
    path: `/admin-users?organizationId=${"o".repeat(257)}`,
    answers: [INVALID],
  },
  ...queryCorpus("GET /users", "/users"),
  { name: "GET /users: a 10,000-character department", method: "GET", path: `/users?department=${"d".repeat(10_000)}`, answers: [INVALID] },
  { name: "GET /users: a NUL department", method: "GET", path: "/users?department=%00", answers: [INVALID] },
  { name: "GET /users: active=1", method: "GET", path: "/users?active=1", answers: [INVALID] },
  {
    name: "GET /users: organizationId given twice",
    method: "GET",
    path: "/users?organizationId={orgA}&organizationId={orgA}",
    answers: [INVALID],
  },
  ...queryCorpus("GET /campaigns", "/campaigns"),
  ...queryCorpus("GET /campaigns/{id}/users", "/campaigns/{campaignA}/users"),
  { name: "GET /campaigns/{id}/users: overdue=yes", method: "GET", path: "/campaigns/{campaignA}/users?overdue=yes", answers: [INVALID] },
  ...queryCorpus("GET /campaigns/{id}/feedback-comments", "/campaigns/{campaignA}/feedback-comments"),
  ...queryCorpus("GET /attack-simulations/{id}/users", "/attack-simulations/{simulationA}/users"),
  ...queryCorpus("GET /attack-simulations/{id}/feedback-comments", "/attack-simulations/{simulationA}/feedback-comments"),
  ...queryCorpus("GET /organizations/{id}/directory/users", "/organizations/{orgA}/directory/users"),
  ...queryCorpus("GET /organizations/{id}/directory/groups", "/organizations/{orgA}/directory/groups?search=a"),
  {
    name: "GET …/directory/users: a NUL search",
    method: "GET",
    path: "/organizations/{orgA}/directory/users?search=%00",
    answers: [INVALID],
  },
  {
    name: "GET …/directory/users: a search of LIKE wildcards",
    method: "GET",
    path: "/organizations/{orgA}/directory/users?search=%25_%5C",
    answers: ["200"],
  },
  {
    name: "GET …/directory/users: a search of GLOB classes",
    method: "GET",
    path: "/organizations/{orgA}/directory/users?search=%5B*%3F%5D",
    answers: ["200"],
  },
  {
    name: "GET …/directory/users: a 257-character search",
    method: "GET",
    path: `/organizations/{orgA}/directory/users?search=${"s".repeat(257)}`,
    answers: [INVALID],
  },
  {
    name: "GET …/directory/users: search given twice",
    method: "GET",
    path: "/organizations/{orgA}/directory/users?search=a&search=b",
    answers: [INVALID],
  },
];
