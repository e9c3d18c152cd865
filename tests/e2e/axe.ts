// axe-core on what is on screen, for the specs of single views (a11y.spec.ts walks every page).
import AxeBuilder from '@axe-core/playwright';
import { type Page, expect } from '@playwright/test';

// WCAG 2.1 A and AA, as a11y.spec.ts checks them.
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** No critical axe violation on the page as it is now; the rules and nodes are named when one is found. */
export async function expectNoCriticalA11y(page: Page, name: string) {
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const critical = result.violations
    .filter((v) => v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  expect(critical, `critical axe violations on ${name}`).toEqual([]);
}
