/** Words that carry no meaning for the vault's topics. */
const STOP = new Set(
  'a an and are as at be been but by can do does for from has have how i if in into is it its me my no not of on or our please should so than that the their then there these this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/**
 * Light suffix stripping so the forms of a word meet: "neighbors"/"neighbor",
 * "policies"/"policy", "approve"/"approver"/"approval"/"approved".
 */
export function stem(word: string): string {
  if (/[\d.]/.test(word) || word.length <= 4) return word;
  let w = word;
  if (w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ing') && w.length > 6) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 5) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  for (const suffix of ['ion', 'al', 'er', 'e']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 4) return w.slice(0, -suffix.length);
  }
  return w;
}

/**
 * Terms of a text: lower-case words, with addresses, versions and ids kept whole
 * (`10.0.0.2`, `17.9.4a`, `sc-bgp-01`) and compound ids also split into their parts.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[a-z0-9]+(?:[._:/-][a-z0-9]+)*/g)) {
    const token = m[0];
    if (!STOP.has(token)) out.push(stem(token));
    if (/[-/_:]/.test(token)) {
      for (const part of token.split(/[-/_:]/)) if (part.length >= 2 && !STOP.has(part) && part !== token) out.push(stem(part));
    }
  }
  return out;
}

export interface RankDoc {
  /** Body terms. */
  body: string[];
  /** Title, heading and tag terms: a match there says more than one in the text. */
  label: string[];
}

const K1 = 1.2;
const B = 0.75;
/** What a query term found in the title, heading or tags adds, in units of its idf. */
const LABEL_BONUS = 1.5;

/**
 * BM25 over the documents' bodies, plus a flat bonus per query term in the label (so a short
 * section is not favoured just for repeating its page's title), times a bonus for covering more
 * of the query's distinct terms (a section naming both "10.0.0.6" and "maintenance" beats one
 * that says "BGP" ten times).
 */
export function bm25(queryTerms: string[], docs: RankDoc[]): number[] {
  const q = [...new Set(queryTerms)];
  if (q.length === 0 || docs.length === 0) return docs.map(() => 0);
  const tf = docs.map((d) => {
    const counts = new Map<string, number>();
    for (const t of d.body) counts.set(t, (counts.get(t) ?? 0) + 1);
    return counts;
  });
  const labels = docs.map((d) => new Set(d.label));
  const avg = docs.reduce((a, d) => a + d.body.length, 0) / docs.length || 1;
  const idf = new Map(
    q.map((term) => {
      const df = docs.filter((_, i) => tf[i]!.has(term) || labels[i]!.has(term)).length;
      return [term, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))];
    }),
  );
  return docs.map((d, i) => {
    let score = 0;
    let covered = 0;
    for (const term of q) {
      const f = tf[i]!.get(term) ?? 0;
      const inLabel = labels[i]!.has(term);
      if (f === 0 && !inLabel) continue;
      covered++;
      const body = (f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.body.length) / avg));
      score += idf.get(term)! * (body + (inLabel ? LABEL_BONUS : 0));
    }
    return score * (1 + covered / q.length);
  });
}
