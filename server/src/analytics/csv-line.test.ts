import { describe, expect, it } from "vitest";
import { csvLine } from "./csv-line.js";

describe("csvLine", () => {
  it("joins plain cells with commas and ends the record with CRLF (RFC 4180 §2)", () => {
    expect(csvLine(["a", 1, true, null, "b"])).toBe("a,1,true,,b\r\n");
  });

  it("quotes cells with commas, quotes, CR or LF and doubles their quotes", () => {
    expect(csvLine(['Smith, "Jo"', "line\nbreak", "cr\rhere", 'say "hi"'])).toBe(
      '"Smith, ""Jo""","line\nbreak","cr\rhere","say ""hi"""\r\n',
    );
  });

  it("prefixes text a spreadsheet would run as a formula with a quote, and quotes it when needed", () => {
    expect(csvLine(["=1+1", "+1", "-1", "@x", "\tx"])).toBe("'=1+1,'+1,'-1,'@x,'\tx\r\n");
    expect(csvLine(['=HYPERLINK("http://x","y")'])).toBe(`"'=HYPERLINK(""http://x"",""y"")"\r\n`);
  });

  it("writes numbers as numbers, negative ones too", () => {
    expect(csvLine([-5, 0, 12.5])).toBe("-5,0,12.5\r\n");
  });
});
