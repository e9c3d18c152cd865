import { matchPath } from 'react-router';
import { type LazyPage, lazyPage } from './lazyPage';

// Every page is its own chunk, fetched on first visit: the first load carries the shell only.
export const LoginPage = lazyPage(() => import('../pages/login/LoginPage'), 'LoginPage');
export const VCentersPage = lazyPage(() => import('../pages/vcenters/VCentersPage'), 'VCentersPage');
export const WizardPage = lazyPage(() => import('../pages/wizard/WizardPage'), 'WizardPage');
export const DesktopPoolsPage = lazyPage(() => import('../pages/pools/DesktopPoolsPage'), 'DesktopPoolsPage');
export const FleetPage = lazyPage(() => import('../pages/fleet/FleetPage'), 'FleetPage');
export const AppliancesPage = lazyPage(() => import('../pages/appliances/AppliancesPage'), 'AppliancesPage');
export const SettingsPage = lazyPage(() => import('../pages/settings/SettingsPage'), 'SettingsPage');
export const InventoryPage = lazyPage(() => import('../pages/inventory/InventoryPage'), 'InventoryPage');
export const DatasetsPage = lazyPage(() => import('../pages/storage/DatasetsPage'), 'DatasetsPage');
export const DisksPage = lazyPage(() => import('../pages/storage/DisksPage'), 'DisksPage');
export const ExportsPage = lazyPage(() => import('../pages/storage/ExportsPage'), 'ExportsPage');
export const IscsiPage = lazyPage(() => import('../pages/storage/IscsiPage'), 'IscsiPage');
export const PoolsPage = lazyPage(() => import('../pages/storage/PoolsPage'), 'PoolsPage');
export const StorageDashboardPage = lazyPage(() => import('../pages/storage/StorageDashboardPage'), 'StorageDashboardPage');
export const TuningPage = lazyPage(() => import('../pages/storage/TuningPage'), 'TuningPage');
export const CalibrationPage = lazyPage(() => import('../pages/calibration/CalibrationPage'), 'CalibrationPage');

/** The storage pages, by their path under /storage: an appliance's own, or one's through the manager. */
export const STORAGE_PAGES: readonly [string, LazyPage][] = [
  ['', StorageDashboardPage],
  ['disks', DisksPage],
  ['pools', PoolsPage],
  ['datasets', DatasetsPage],
  ['exports', ExportsPage],
  ['iscsi', IscsiPage],
  ['tuning', TuningPage],
  ['calibration', CalibrationPage],
];

/** Where the manager shows an appliance's storage pages (api/scope.tsx's appliancePath). */
export const APPLIANCE_STORAGE = '/fleet/:deployment/:appliance/storage';

// The page a URL opens (as App's routes say; '/' opens the vCenters page).
const BY_PATH: readonly [string, LazyPage][] = [
  ['/login', LoginPage],
  ['/', VCentersPage],
  ['/vcenters', VCentersPage],
  ['/vcenters/:id/inventory', InventoryPage],
  ['/deploy/*', WizardPage],
  ['/pools', DesktopPoolsPage],
  ['/fleet', FleetPage],
  ['/appliances', AppliancesPage],
  ['/settings', SettingsPage],
  ['/storage', StorageDashboardPage],
  ['/storage/disks', DisksPage],
  ['/storage/pools', PoolsPage],
  ['/storage/datasets', DatasetsPage],
  ['/storage/exports', ExportsPage],
  ['/storage/iscsi', IscsiPage],
  ['/storage/tuning', TuningPage],
  ['/storage/calibration', CalibrationPage],
  // the same pages of an appliance through the manager (fleet-drilldown.spec.ts walks them)
  ...STORAGE_PAGES.map(([path, page]): [string, LazyPage] => [path ? `${APPLIANCE_STORAGE}/${path}` : APPLIANCE_STORAGE, page]),
];

/** Fetch the chunk of the page at `pathname` now, while the session is still being checked. */
export function preloadPage(pathname: string): void {
  BY_PATH.find(([pattern]) => matchPath(pattern, pathname))?.[1].preload();
}
