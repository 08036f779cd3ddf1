import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import { parsePatchPath } from "../path/parse-patch-path.js";
import { memberIdsOfFilter } from "./member-ids.js";
import { groups } from "./patch.fixture.js";

function idsOf(path: string) {
  const parsed = unwrap(parsePatchPath(groups, path));
  if (!parsed.filter) throw new Error(`${path} has no filter`);
  return memberIdsOfFilter(parsed.filter);
}

describe("memberIdsOfFilter", () => {
  it("reads the id of value eq", () => {
    expect(idsOf('members[value eq "2819c223"]')).toEqual(["2819c223"]);
    expect(idsOf('members[VALUE eq "2819c223"]')).toEqual(["2819c223"]);
  });

  it("reads every id of an or of value eq, once each", () => {
    expect(idsOf('members[value eq "a" or value eq "b" or (value eq "a")]')).toEqual(["a", "b"]);
  });

  it.each([
    'members[display eq "Babs"]',
    'members[value sw "28"]',
    'members[value ne "a"]',
    'members[value eq "a" and type eq "User"]',
    'members[value eq "a" or display eq "b"]',
    'members[not (value eq "a")]',
    "members[value pr]",
  ])("cannot name the members of %s", (path) => {
    expect(idsOf(path)).toBeUndefined();
  });
});
