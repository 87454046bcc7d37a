export function listenHost(env?: Record<string, string | undefined>): string;
export function isLoopback(host: string): boolean;
export function isExposed(host: string): boolean;
export function probeUrl(host: string, port: number): string;
export function displayUrl(host: string, port: number): string;
