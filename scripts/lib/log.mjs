// Console output of the project's scripts: one prefix so a newcomer sees which lines are ours.
const tag = '\x1b[36m[centralita]\x1b[0m';
export const log = (message) => console.log(`${tag} ${message}`);
export const warn = (message) => console.warn(`${tag} \x1b[33m${message}\x1b[0m`);
export function fail(message) {
  console.error(`${tag} \x1b[31m${message}\x1b[0m`);
  process.exit(1);
}
