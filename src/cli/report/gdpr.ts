import { inventoryReport, requireReport, type Inventory, type RequireVerdict } from '../../gdpr/report.js';
import { UsageError } from '../errors.js';
import { about, reportFormats, type CiFormat, type GateFormat, type ViewFormatter } from './emit.js';

/*
 * gdpr's formats: the inventory and the --require gate (src/gdpr/report.ts makes a Report of each),
 * rendered in the format asked for (INVENTORY_FORMATS, REQUIRE_FORMATS).
 */

/** SARIF and JUnit report the --require gate; the inventory has none (refused before any work is done). */
const gateOnly = (format: CiFormat): ViewFormatter<Inventory> => () => {
  throw new UsageError(`--format ${format} reports the --require gate: add --require`);
};

export const INVENTORY_FORMATS: Record<GateFormat, ViewFormatter<Inventory>> = {
  ...reportFormats((i: Inventory) => inventoryReport(i, about())), sarif: gateOnly('sarif'), junit: gateOnly('junit'),
};

export const REQUIRE_FORMATS: Record<GateFormat, ViewFormatter<RequireVerdict>> = reportFormats((v: RequireVerdict) => requireReport(v, about()));
