// Types of panel-build.js, which is plain JavaScript so that it runs before anything is compiled.
export const PANEL_DIST: string;
/** Builds dist/panel unless it is fresh (or `force`); resolves with whether it built. */
export function ensurePanelBuilt(options?: { force?: boolean }): Promise<boolean>;
export function panelFingerprint(): string;
