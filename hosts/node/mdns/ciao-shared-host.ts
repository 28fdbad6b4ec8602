// Lets several services of one ciao responder share a host name, as real receivers publish
// `_vendorplay._tcp` and `_raop._tcp` on one host (RFC 6763 does not ask a host name per service).
//
// ciao 1.3 probes each service's host name against the services it has already announced and
// renames the host ("Name-(2).local") when one matches (Prober.checkLocalConflicts). That is
// homebridge/ciao#20, still open: RFC 6762 8.1 asks for unique *records*; a host's A records
// for its own name are the same rdata whichever of its services carries them, and RFC 6762 9
// says identical rdata never conflicts. Only the service instance name (FQDN) must be unique.
// Two checks of ciao's Prober treat the shared name as taken, and both are narrowed here:
// - checkLocalConflicts (services of the same responder): keeps its FQDN half only.
// - handleResponse (responses seen while probing): ciao also hears its own announcements
//   looped back from another interface's socket (it recognises its packets per interface), so
//   the first service's A record for the shared name looked like another host's. An A or AAAA
//   record for the host name whose address is one of this service's own, or the host name's
//   NSEC, is identical rdata and no longer a conflict; an address that is not ours still is,
//   and any record under the instance name (FQDN) still is.
// Conflicts with other hosts keep working: another address for the name, or the instance name
// taken, renames as before (tiebreaks are untouched).
//
// Scope of the change: two methods of one class, replaced once per process, checked against the
// shape they expect; if ciao changes that shape, nothing is replaced and the advertiser falls back
// to one host name per service (and logs why).

import { Prober } from '@homebridge/ciao/lib/responder/Prober.js';

/** RFC 1035 3.2.2, RFC 3596, RFC 4034 4: the record types of a host name. */
const RTYPE_A = 1;
const RTYPE_AAAA = 28;
const RTYPE_NSEC = 47;

interface ProbeRecord {
  type: number;
  getLowerCasedName(): string;
  ipAddress?: string;
}

/** The members of ciao's Prober the replacements use (ciao 1.3, lib/responder/Prober.js). */
interface ProberInternals {
  responder: { getAnnouncedServices(): Iterable<{ getLowerCasedFQDN(): string }> };
  service: {
    getLowerCasedFQDN(): string;
    getLowerCasedHostname(): string;
    hasAddress(address: string): boolean;
    advertisesOnInterface(name: string): boolean;
  };
  sentFirstProbeQuery: boolean;
  handleNameChange(): void;
  checkLocalConflicts(): void;
  handleResponse(packet: { answers: Map<unknown, ProbeRecord>; additionals: Map<unknown, ProbeRecord> }, endpoint: { interface: string }): void;
}

/** Whether `record`, seen while probing, says the name or host name belongs to another host. */
function conflicts(prober: ProberInternals, record: ProbeRecord): boolean {
  const name = record.getLowerCasedName();
  if (name === prober.service.getLowerCasedFQDN()) return true;
  if (name !== prober.service.getLowerCasedHostname()) return false;
  if (record.type === RTYPE_NSEC) return false;
  if ((record.type === RTYPE_A || record.type === RTYPE_AAAA) && record.ipAddress !== undefined) return !prober.service.hasAddress(record.ipAddress);
  return true;
}

let installed: boolean | undefined;

/**
 * Makes ciao accept one host name for several of its services. Returns whether it could (the
 * first call decides; later calls return the same answer).
 */
export function shareHostNames(): boolean {
  if (installed !== undefined) return installed;
  const prototype = Prober.prototype as unknown as Partial<ProberInternals>;
  if (
    typeof prototype.checkLocalConflicts !== 'function' ||
    typeof prototype.handleResponse !== 'function' ||
    typeof prototype.handleNameChange !== 'function'
  ) {
    installed = false;
    return installed;
  }
  prototype.checkLocalConflicts = function checkLocalConflicts(this: ProberInternals): void {
    const fqdn = this.service.getLowerCasedFQDN();
    for (const service of this.responder.getAnnouncedServices()) {
      if (service.getLowerCasedFQDN() === fqdn) {
        this.handleNameChange();
        return;
      }
    }
  };
  prototype.handleResponse = function handleResponse(this: ProberInternals, packet, endpoint): void {
    if (!this.sentFirstProbeQuery || !this.service.advertisesOnInterface(endpoint.interface)) return;
    for (const section of [packet.answers, packet.additionals]) {
      for (const record of section.values()) {
        if (conflicts(this, record)) {
          this.handleNameChange();
          return;
        }
      }
    }
  };
  installed = true;
  return installed;
}
