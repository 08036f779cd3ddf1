/**
 * Filters (RFC 7644 §3.4.2.2, architecture §3): a store answers every resolved filter exactly as
 * `matchesFilter(resourceView(r), filter)` would over the organization's resources, in list order,
 * with the right total. Key cases also carry a hand-written answer, so the kit does not only
 * grade the store against the evaluator it may itself be using.
 */
import { expect } from "vitest";
import { matchesFilter } from "../../scim/filter/matches-filter.js";
import type { ScimObject } from "../../scim/schema/normalize-value.js";
import { conformanceTest, type ConformanceContext, type ConformanceSuite } from "../conformance-test.js";
import { ENTERPRISE_URN, METRICS_URN, byId, filterOf, idsOf, listResources, newId, type ResourceTypeId } from "./helpers.js";
import { groupViews, seedPopulation, userViews, type GroupName, type Population, type UserName } from "./population.js";

/** One filter, and optionally the kit's own answer: the population's names that must match. */
interface FilterCase {
  readonly filter: string;
  readonly expected?: readonly (UserName | GroupName)[];
}

type CaseBuilder = (population: Population) => readonly FilterCase[];

async function checkFilters(context: ConformanceContext, type: ResourceTypeId, build: CaseBuilder): Promise<void> {
  if (type === "Group") context.requireCapability("groups");
  const population = await seedPopulation(context);
  const views: readonly ScimObject[] = type === "User" ? userViews(population) : groupViews(population);
  const names = (ids: readonly string[]): string[] => ids.map((id) => population.nameIn(type, id));
  for (const { filter, expected } of build(population)) {
    const resolved = filterOf(type, filter);
    const reference = byId(views.filter((view) => matchesFilter(view, resolved)).map((view) => String(view["id"])));
    if (expected) {
      // A disagreement here is a defect of the kit (or of matchesFilter), not of the store.
      expect.soft([...names(reference)].sort(), `kit self-check: matchesFilter on ${filter}`).toEqual([...expected].sort());
    }
    const result = await listResources(context, type, { filter });
    expect.soft(names(idsOf(result.resources)), `resources matching ${filter}, in id order`).toEqual(names(reference));
    expect.soft(result.totalResults, `totalResults of ${filter}`).toBe(reference.length);
  }
}

const ENTERPRISE = ENTERPRISE_URN;
const METRICS = METRICS_URN;

/** `time` (canonical UTC) written with a +01:00 offset: the same instant in another form. */
function inPlusOne(time: string): string {
  const shifted = new Date(Date.parse(time) + 3_600_000).toISOString();
  return shifted.replace(/\.\d{3}Z$/, "+01:00");
}

export const filterSuite: ConformanceSuite = {
  title: "filters",
  tests: [
    conformanceTest("filter eq: userName case-insensitively, id and externalId case-exactly", (context) =>
      checkFilters(context, "User", ({ users }) => [
        { filter: 'userName eq "bob@acme.TEST"', expected: ["bob"] },
        { filter: 'userName eq "FRANK@ACME.TEST"', expected: ["frank"] },
        { filter: 'externalId eq "ext-1"', expected: ["alice", "erin"] },
        { filter: 'externalId eq "EXT-1"', expected: [] },
        { filter: 'externalId eq "EXT-2"', expected: ["bob"] },
        { filter: 'externalId eq "ext-2"', expected: [] },
        { filter: `id eq "${users.carol.id}"`, expected: ["carol"] },
        { filter: `id eq "${users.carol.id.toUpperCase()}"`, expected: [] },
        { filter: 'title eq "lead analyst"', expected: ["carol"] },
        { filter: 'nickName eq ""', expected: ["bob"] },
      ]),
    ),

    conformanceTest("filter ne: the negation of eq, true where the attribute is absent", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'userName ne "alice@ACME.test"', expected: ["bob", "carol", "dave", "erin", "frank"] },
        { filter: 'externalId ne "ext-1"', expected: ["bob", "carol", "dave", "frank"] },
        { filter: "active ne true", expected: ["bob", "dave"] },
        { filter: 'name.familyName ne "anderson"', expected: ["bob", "carol", "dave", "erin"] },
        { filter: 'emails.type ne "work"', expected: ["dave"] },
      ]),
    ),

    conformanceTest("filter co, sw, ew: substrings, case-insensitive unless caseExact, wildcards literal", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'userName co "ACME"', expected: ["alice", "bob", "erin", "frank"] },
        { filter: 'userName sw "b"', expected: ["bob"] },
        { filter: 'userName ew ".TEST"', expected: ["alice", "bob", "carol", "dave", "erin", "frank"] },
        { filter: 'name.givenName co "ar"', expected: ["carol"] },
        { filter: 'externalId sw "EXT"', expected: ["bob"] },
        { filter: 'externalId co "xt-"', expected: ["alice", "carol", "erin"] },
        // SQL LIKE wildcards and escapes must be matched literally.
        { filter: 'userName co "%"', expected: [] },
        { filter: 'userName co "_"', expected: [] },
        { filter: 'userName sw "a%"', expected: [] },
        { filter: 'userName co "\\\\"', expected: [] },
      ]),
    ),

    conformanceTest("filter gt, ge, lt, le on strings: case-insensitive order", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'userName gt "c"', expected: ["carol", "dave", "erin", "frank"] },
        { filter: 'userName ge "CAROL@beta.test"', expected: ["carol", "dave", "erin", "frank"] },
        { filter: 'userName lt "BOB@acme.test"', expected: ["alice"] },
        { filter: 'userName le "bob@acme.test"', expected: ["alice", "bob"] },
        { filter: 'name.familyName lt "C"', expected: ["alice", "bob", "frank"] },
        { filter: 'externalId gt "e"', expected: ["alice", "carol", "erin"] },
      ]),
    ),

    conformanceTest("filter eq, gt, ge, lt, le on dateTimes: meta.created and meta.lastModified as instants", (context) =>
      checkFilters(context, "User", ({ users }) => [
        { filter: `meta.created gt "${users.carol.created}"`, expected: ["dave", "erin", "frank"] },
        { filter: `meta.created ge "${users.carol.created}"`, expected: ["carol", "dave", "erin", "frank"] },
        { filter: `meta.created lt "${users.carol.created}"`, expected: ["alice", "bob"] },
        { filter: `meta.created le "${users.carol.created}"`, expected: ["alice", "bob", "carol"] },
        { filter: `meta.created eq "${users.bob.created}"`, expected: ["bob"] },
        { filter: `meta.created eq "${inPlusOne(users.erin.created)}"`, expected: ["erin"] },
        { filter: `meta.lastModified gt "${users.frank.created}"`, expected: ["carol"] },
        { filter: `meta.lastModified le "${users.bob.lastModified}"`, expected: ["alice", "bob"] },
        { filter: 'meta.created gt "2000-01-01T00:00:00Z"', expected: ["alice", "bob", "carol", "dave", "erin", "frank"] },
      ]),
    ),

    conformanceTest("filter eq, ne, gt, ge, lt, le on integer and decimal attributes: numeric order", (context) =>
      checkFilters(context, "User", () => [
        { filter: `${METRICS}:level gt 9`, expected: ["alice", "carol", "frank"] },
        { filter: `${METRICS}:level ge 10`, expected: ["alice", "carol", "frank"] },
        { filter: `${METRICS}:level lt 10`, expected: ["bob", "erin"] },
        { filter: `${METRICS}:level le -5`, expected: ["erin"] },
        { filter: `${METRICS}:level eq 100`, expected: ["carol"] },
        { filter: `${METRICS}:level ne 10`, expected: ["bob", "carol", "dave", "erin"] },
        { filter: `${METRICS}:score gt 2`, expected: ["alice", "bob"] },
        { filter: `${METRICS}:score lt 2.5`, expected: ["erin"] },
        { filter: `${METRICS}:score le 0`, expected: ["erin"] },
      ]),
    ),

    conformanceTest("filter pr: null, empty and absent values are not present", (context) =>
      checkFilters(context, "User", () => [
        { filter: "nickName pr", expected: ["alice", "frank"] },
        { filter: "externalId pr", expected: ["alice", "bob", "carol", "erin"] },
        { filter: "emails pr", expected: ["alice", "bob", "carol", "erin", "frank"] },
        { filter: "emails.value pr", expected: ["alice", "bob", "carol", "erin"] },
        { filter: "name pr", expected: ["alice", "bob", "carol", "erin", "frank"] },
        { filter: "name.givenName pr", expected: ["alice", "bob", "carol", "frank"] },
        { filter: `${ENTERPRISE}:department pr`, expected: ["alice", "bob", "carol"] },
        { filter: "nickName eq null", expected: ["bob", "carol", "dave", "erin"] },
        { filter: "nickName ne null", expected: ["alice", "frank"] },
        { filter: "not (nickName pr)", expected: ["bob", "carol", "dave", "erin"] },
      ]),
    ),

    conformanceTest("filter and, or, not and grouping; not holds where the attribute is absent", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'userName sw "a" or userName sw "b"', expected: ["alice", "bob"] },
        { filter: 'active eq true and name.familyName sw "a"', expected: ["alice", "frank"] },
        { filter: '(userName sw "a" or userName sw "b") and active eq true', expected: ["alice"] },
        { filter: 'userName sw "a" or (userName sw "b" and active eq true)', expected: ["alice"] },
        { filter: 'userName sw "a" and userName sw "b"', expected: [] },
        { filter: 'not (userName sw "a" or userName sw "b")', expected: ["carol", "dave", "erin", "frank"] },
        { filter: "not (active eq true)", expected: ["bob", "dave"] },
        { filter: 'not (name.familyName eq "Clark")', expected: ["alice", "bob", "dave", "erin", "frank"] },
        { filter: "not (not (active eq false))", expected: ["bob"] },
        { filter: 'active eq true and not (emails.value co "x")', expected: ["carol", "frank"] },
      ]),
    ),

    conformanceTest("filter valuePath: one element must satisfy the whole bracket", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'emails[type eq "work" and value co "x"]', expected: ["bob", "erin"] },
        { filter: 'emails[type eq "home"]', expected: ["alice", "carol"] },
        { filter: 'emails[type eq "work" and not (value ew ".test")]', expected: ["frank"] },
        { filter: "emails[primary eq true]", expected: ["alice", "carol"] },
        { filter: 'emails[type eq "home" and primary eq true]', expected: [] },
        { filter: "emails[value pr]", expected: ["alice", "bob", "carol", "erin"] },
        { filter: 'emails[type eq "work"] and active eq false', expected: ["bob"] },
        { filter: 'not (emails[type eq "home"])', expected: ["bob", "dave", "erin", "frank"] },
      ]),
    ),

    conformanceTest("filter on a sub-attribute: name.familyName, name.givenName", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'name.familyName eq "anderson"', expected: ["alice", "frank"] },
        { filter: 'name.givenName sw "c"', expected: ["carol"] },
        { filter: 'name.familyName ew "N"', expected: ["alice", "bob", "frank"] },
        { filter: 'name.givenName eq "Erin"', expected: [] },
      ]),
    ),

    conformanceTest("filter on a multi-valued attribute matches when any value does (emails.value, emails)", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'emails.value ew "@home.test"', expected: ["alice", "carol"] },
        { filter: 'emails.value eq "carol@work.test"', expected: ["carol"] },
        { filter: 'emails.value eq "erin.x@work.TEST"', expected: ["erin"] },
        { filter: 'emails co "x"', expected: ["alice", "bob", "erin"] },
        { filter: 'emails.type eq "other"', expected: ["erin"] },
        // Outside brackets, two conditions may be met by different elements.
        { filter: 'emails.value sw "alice@work" and emails.type eq "home"', expected: ["alice"] },
      ]),
    ),

    conformanceTest("filter on an enterprise extension attribute, by full URN path or bare name", (context) =>
      checkFilters(context, "User", ({ users }) => [
        { filter: `${ENTERPRISE}:department eq "engineering"`, expected: ["alice", "carol"] },
        { filter: 'department eq "SALES"', expected: ["bob"] },
        { filter: `${ENTERPRISE}:department sw "eng"`, expected: ["alice", "carol"] },
        { filter: `${ENTERPRISE}:employeeNumber eq "100"`, expected: ["alice"] },
        { filter: `${ENTERPRISE}:manager.value eq "${users.alice.id}"`, expected: ["carol"] },
        { filter: `${ENTERPRISE}:department ne "Engineering"`, expected: ["bob", "dave", "erin", "frank"] },
      ]),
    ),

    conformanceTest("filter on the boolean active", (context) =>
      checkFilters(context, "User", () => [
        { filter: "active eq false", expected: ["bob"] },
        { filter: "active eq true", expected: ["alice", "carol", "erin", "frank"] },
        { filter: "active ne false", expected: ["alice", "carol", "dave", "erin", "frank"] },
        { filter: "active pr", expected: ["alice", "bob", "carol", "erin", "frank"] },
      ]),
    ),

    conformanceTest("filter on groups: displayName and members", (context) =>
      checkFilters(context, "Group", ({ users, groups }) => [
        { filter: 'displayName eq "engineers"', expected: ["engineers"] },
        { filter: 'displayName sw "E"', expected: ["engineers", "everyone", "empty"] },
        { filter: `members.value eq "${users.alice.id}"`, expected: ["engineers", "everyone"] },
        { filter: `members[value eq "${users.bob.id}"]`, expected: ["sales", "everyone"] },
        { filter: `members.value eq "${groups.engineers.id}"`, expected: ["everyone"] },
        { filter: 'members.type eq "Group"', expected: ["everyone"] },
        { filter: "members pr", expected: ["engineers", "sales", "everyone"] },
        { filter: "not (members pr)", expected: ["empty"] },
        { filter: `members.value eq "${users.alice.id}" and displayName ne "Everyone"`, expected: ["engineers"] },
      ]),
    ),

    conformanceTest("a filter that matches nothing gives no resources and a total of 0", (context) =>
      checkFilters(context, "User", () => [
        { filter: 'userName eq "nobody@nowhere.test"', expected: [] },
        { filter: `id eq "${newId()}"`, expected: [] },
        { filter: 'externalId eq "nope"', expected: [] },
        { filter: 'title eq "Analyst"', expected: [] },
      ]),
    ),
  ],
};
