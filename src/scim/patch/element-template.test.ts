import { describe, expect, it } from "vitest";
import { unwrap } from "../../result.js";
import { parsePatchPath } from "../path/parse-patch-path.js";
import { elementTemplate } from "./element-template.js";
import { users } from "./patch.fixture.js";

function templateOf(path: string) {
  const parsed = unwrap(parsePatchPath(users, path));
  if (!parsed.filter) throw new Error(`${path} has no filter`);
  return elementTemplate(parsed.filter);
}

describe("elementTemplate", () => {
  it("builds the element an eq comparison describes, with canonical names", () => {
    expect(templateOf('emails[TYPE eq "work"]')).toEqual({ type: "work" });
  });

  it("joins the comparisons of a conjunction, with typed values", () => {
    expect(templateOf('addresses[type eq "work" and primary eq "True"]')).toEqual({ type: "work", primary: true });
    expect(templateOf('roles[primary eq true and (type eq "job" and value eq "Guide")]')).toEqual({
      primary: true,
      type: "job",
      value: "Guide",
    });
  });

  it("tolerates a repeated identical condition", () => {
    expect(templateOf('emails[type eq "work" and type eq "work"]')).toEqual({ type: "work" });
  });

  it.each([
    'emails[type ne "work"]',
    'emails[value co "@example.com"]',
    'emails[type eq "work" or type eq "home"]',
    "emails[value pr]",
    'emails[not (type eq "work")]',
    "emails[type eq null]",
    'emails[type eq "work" and type eq "home"]',
  ])("describes no single element for %s", (path) => {
    expect(templateOf(path)).toBeUndefined();
  });
});
