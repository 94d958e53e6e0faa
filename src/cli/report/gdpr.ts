import { inventoryReport, requireReport, type Inventory, type RequireVerdict } from '../../gdpr/report.js';
import { inventoryJsonView, requireJsonView } from '../../gdpr/view-json.js';
import { inventoryTextView, requireTextView } from '../../gdpr/view-text.js';
import { UsageError } from '../errors.js';
import { OUTPUT_FORMATS } from '../../report/formats.js';
import { about, reportFormats, type GateFormat, type ViewFormatter } from './emit.js';

/*
 * gdpr's formats: the inventory and the --require gate (src/gdpr/report.ts makes a Report of each,
 * its views lay out text and JSON), rendered in the format asked for (INVENTORY_FORMATS, REQUIRE_FORMATS).
 */

/** The CI results formats (SARIF, JUnit) report the --require gate; the inventory has none (refused before any work is done). */
const gateOnly =
  (format: string): ViewFormatter<Inventory> =>
  () => {
    throw new UsageError(`--format ${format} reports the --require gate: add --require`);
  };

export const INVENTORY_FORMATS: Record<GateFormat, ViewFormatter<Inventory>> = {
  ...reportFormats((i: Inventory) => inventoryReport(i, about()), { text: () => inventoryTextView, json: () => inventoryJsonView }),
  ...Object.fromEntries(OUTPUT_FORMATS.filter((f) => f.ci).map((f) => [f.name, gateOnly(f.name)])),
};

export const REQUIRE_FORMATS: Record<GateFormat, ViewFormatter<RequireVerdict>> = reportFormats(
  (v: RequireVerdict) => requireReport(v, about()),
  {
    text: () => requireTextView,
    json: requireJsonView,
  },
);
