/**
 * Matcher benchmark (issue 3): builds a catalog of 10,000 venues and 1,000,000 events in
 * memory, times its load from JSON text (JSON.parse + parseCatalog + createMatcher), then
 * times lookups with a realistic mix (~3% inside an event window, most items nowhere near
 * a venue). A linear-scan reference matcher on a small sample is the baseline in the same
 * run, and cross-checks the indexed answers.
 *
 * Run: node --import tsx bench/matcher.ts [--venues N] [--events N] [--lookups N]
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCatalog } from '../src/service/catalog/index.js';
import {
  createMatcher,
  createReferenceMatcher,
  destinationPoint,
  type MatchQuery,
} from '../src/service/matching/index.js';
import { seededRandom as random } from '../src/util/seeded-random.js';

export interface MatcherBenchOptions {
  venues?: number;
  events?: number;
  lookups?: number;
  /** Lookups checked against the linear-scan reference (the baseline). */
  referenceLookups?: number;
  seed?: number;
  log?: (line: string) => void;
}

export interface MatcherBenchResult {
  venues: number;
  events: number;
  jsonMB: number;
  loadMs: number;
  loadCpuMs: number;
  lookups: number;
  lookupsPerSecond: number;
  matchedShare: number;
  referenceLookupsPerSecond: number;
  speedup: number;
  mismatches: number;
  machine: string;
}

// Zones by the longitude they roughly serve, so a venue's zone is plausible for its place.
const ZONES: [number, string][] = [
  [-157, 'Pacific/Honolulu'],
  [-122, 'America/Los_Angeles'],
  [-105, 'America/Denver'],
  [-90, 'America/Chicago'],
  [-75, 'America/New_York'],
  [-58, 'America/Argentina/Buenos_Aires'],
  [-46, 'America/Sao_Paulo'],
  [-22, 'Atlantic/Reykjavik'],
  [0, 'Europe/London'],
  [10, 'Europe/Paris'],
  [20, 'Europe/Warsaw'],
  [30, 'Africa/Johannesburg'],
  [37, 'Europe/Moscow'],
  [55, 'Asia/Dubai'],
  [77, 'Asia/Kolkata'],
  [85, 'Asia/Kathmandu'],
  [100, 'Asia/Bangkok'],
  [116, 'Asia/Shanghai'],
  [139, 'Asia/Tokyo'],
  [151, 'Australia/Sydney'],
  [175, 'Pacific/Auckland'],
  [179, 'Pacific/Fiji'],
];

const pad = (n: number): string => String(n).padStart(2, '0');

/** A synthetic catalog as JSON text, with `venues` venues and `events` events spread over 2015-2026. */
export function syntheticCatalogText(venueCount: number, eventCount: number, seed: number): string {
  const next = random(seed);
  const parts: string[] = ['{"venues":['];
  for (let i = 0; i < venueCount; i += 1) {
    const latitude = Math.round((-55 + next() * 125) * 1e5) / 1e5;
    const longitude = Math.round((-180 + next() * 360) * 1e5) / 1e5;
    let zone = ZONES[0] as [number, string];
    for (const z of ZONES) if (Math.abs(z[0] - longitude) < Math.abs(zone[0] - longitude)) zone = z;
    const radius = 150 + Math.floor(next() * 650);
    parts.push(
      `${i ? ',' : ''}{"id":${i + 1},"name":"V${i + 1}","latitude":${latitude},"longitude":${longitude},"radius_m":${radius},"timezone":"${zone[1]}"}`,
    );
  }
  parts.push('],"performers":[');
  const performerCount = Math.max(1, Math.floor(venueCount / 2));
  for (let i = 0; i < performerCount; i += 1)
    parts.push(`${i ? ',' : ''}{"id":${i + 1},"name":"P${i + 1}","category":"rock"}`);
  parts.push('],"events":[');
  for (let i = 0; i < eventCount; i += 1) {
    const venue = 1 + Math.floor(next() * venueCount);
    const day = new Date(Date.UTC(2015, 0, 1) + Math.floor(next() * 4383) * 86_400_000);
    const local = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}T${pad(13 + Math.floor(next() * 9))}:${next() < 0.5 ? '00' : '30'}:00`;
    const performer = 1 + Math.floor(next() * performerCount);
    const roll = next();
    parts.push(
      `${i ? ',' : ''}{"id":${i + 1},"name":"E${i + 1}","kind":"concert","venue_id":${venue},"starts_at_local":"${local}",` +
        `"performers":[{"id":${performer},"is_headliner":true}],"licensed":${roll >= 0.03},"hidden":${roll >= 0.03 && roll < 0.04}}`,
    );
  }
  parts.push(']}');
  return parts.join('');
}

/** Runs the benchmark and returns its figures (also logged line by line). */
export function runMatcherBench(options: MatcherBenchOptions = {}): MatcherBenchResult {
  const venueCount = options.venues ?? 10_000;
  const eventCount = options.events ?? 1_000_000;
  const lookupCount = options.lookups ?? 2_000_000;
  const referenceCount = options.referenceLookups ?? 2_000;
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const machine = `${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}, Node ${process.version}, load ${os.loadavg()[0]?.toFixed(1)}`;
  log(`machine: ${machine}`);

  const text = syntheticCatalogText(venueCount, eventCount, options.seed ?? 7);
  const jsonMB = Buffer.byteLength(text) / 1e6;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const catalog = parseCatalog(JSON.parse(text), { adopt: true }); // as loadCatalog does
  const matcher = createMatcher(catalog);
  const loadMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const loadCpuMs = (cpu.user + cpu.system) / 1000;
  log(
    `catalog: ${venueCount} venues, ${eventCount} events, ${jsonMB.toFixed(1)} MB JSON; load ${loadMs.toFixed(0)} ms ` +
      `wall, ${loadCpuMs.toFixed(0)} ms CPU`,
  );

  // Queries: 3% inside a random event's window at its venue, 7% at a venue at a random
  // time, 90% anywhere on Earth at a random time.
  const next = random(99);
  const events = [...catalog.events.values()];
  const venues = [...catalog.venues.values()];
  const lat = new Float64Array(lookupCount);
  const lon = new Float64Array(lookupCount);
  const time = new Float64Array(lookupCount);
  const span = Date.UTC(2027, 0, 1) - Date.UTC(2015, 0, 1);
  for (let i = 0; i < lookupCount; i += 1) {
    const roll = next();
    if (roll < 0.1) {
      const e = roll < 0.03 ? (events[Math.floor(next() * events.length)] as (typeof events)[number]) : undefined;
      const v = e
        ? catalog.venues.get(e.venue_id)!
        : (venues[Math.floor(next() * venues.length)] as (typeof venues)[number]);
      const p = destinationPoint(v.latitude, v.longitude, next() * v.radius_m * 0.9, next() * 360);
      lat[i] = p.latitude;
      lon[i] = p.longitude;
      time[i] = e ? e.startsAtMs - 2 * 3_600_000 + next() * 6 * 3_600_000 : Date.UTC(2015, 0, 1) + next() * span;
    } else {
      lat[i] = Math.asin(2 * next() - 1) * (180 / Math.PI);
      lon[i] = -180 + next() * 360;
      time[i] = Date.UTC(2015, 0, 1) + next() * span;
    }
  }

  const query: MatchQuery = { latitude: 0, longitude: 0, takenAtMs: 0 };
  let matched = 0;
  const run = (count: number): void => {
    for (let i = 0; i < count; i += 1) {
      query.latitude = lat[i] as number;
      query.longitude = lon[i] as number;
      query.takenAtMs = time[i] as number;
      if (matcher.match(query).kind !== 'none') matched += 1;
    }
  };
  run(Math.min(lookupCount, 200_000)); // warm-up
  matched = 0;
  const t1 = performance.now();
  run(lookupCount);
  const lookupMs = performance.now() - t1;
  const lookupsPerSecond = lookupCount / (lookupMs / 1000);
  log(
    `lookups: ${lookupCount} in ${lookupMs.toFixed(0)} ms = ${Math.round(lookupsPerSecond).toLocaleString('en-US')} /s; ${((matched / lookupCount) * 100).toFixed(2)}% on an event`,
  );

  const reference = createReferenceMatcher(catalog);
  let mismatches = 0;
  const t2 = performance.now();
  for (let i = 0; i < referenceCount; i += 1) {
    const q = { latitude: lat[i] as number, longitude: lon[i] as number, takenAtMs: time[i] as number };
    if (JSON.stringify(reference.match(q)) !== JSON.stringify(matcher.match(q))) mismatches += 1;
  }
  const referenceLookupsPerSecond = referenceCount / ((performance.now() - t2) / 1000);
  const speedup = lookupsPerSecond / referenceLookupsPerSecond;
  log(
    `baseline (linear scan, ${referenceCount} lookups): ${Math.round(referenceLookupsPerSecond).toLocaleString('en-US')} /s; index is ${Math.round(speedup).toLocaleString('en-US')}x faster; mismatches ${mismatches}`,
  );
  log(
    `targets: lookups >= 1,000,000 /s ${lookupsPerSecond >= 1e6 ? 'met' : 'NOT met'}; load <= 3 s ${loadMs <= 3000 ? 'met' : 'NOT met'}`,
  );
  return {
    venues: venueCount,
    events: eventCount,
    jsonMB,
    loadMs,
    loadCpuMs,
    lookups: lookupCount,
    lookupsPerSecond,
    matchedShare: matched / lookupCount,
    referenceLookupsPerSecond,
    speedup,
    mismatches,
    machine,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { venues: { type: 'string' }, events: { type: 'string' }, lookups: { type: 'string' } },
  });
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  runMatcherBench({ venues: num(values.venues), events: num(values.events), lookups: num(values.lookups) });
}
