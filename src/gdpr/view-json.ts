import type { JsonView } from '../report/json.js';
import type { InventoryUrn, RequireVerdict } from './report.js';

/* gdpr's JSON (schemas/output/gdpr.json): the inventory's URNs with their fields; the gate's unmarked fields. */

export const inventoryJsonView: JsonView<InventoryUrn> = {
  units: 'urns',
  unit: (u) => (u.subject === undefined ? undefined : { urn: u.subject.urn, fields: u.subject.fields }),
};

export function requireJsonView(verdict: RequireVerdict): JsonView {
  const services = verdict.ownerless.map(({ service, missing, urns }) => ({ service, missing, urns }));
  return { fields: { findings: verdict.findings, ...(services.length === 0 ? {} : { services }) } };
}
