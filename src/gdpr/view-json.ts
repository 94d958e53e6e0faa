import type { JsonView } from '../report/json.js';
import type { InventoryUrn, RequireVerdict } from './report.js';

/* gdpr's JSON (schemas/output/gdpr.json): the inventory's URNs with their fields; the gate's unmarked fields. */

export const inventoryJsonView: JsonView<InventoryUrn> = { units: 'urns', unit: (u) => (u.subject === undefined ? undefined : { urn: u.subject.urn, fields: u.subject.fields }) };

export const requireJsonView = (verdict: RequireVerdict): JsonView => ({ fields: { findings: verdict.findings } });
