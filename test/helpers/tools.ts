import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Tests that drive Debian programs (Chromium, PHP's SoapClient, python zeep, the Prometheus
 * client's parser) run where those are installed. In CI (`CI=true`; `.ci/run` installs them) a
 * missing one fails the run; elsewhere its tests are skipped with a message saying what to install.
 */
export function required(name: string, available: boolean, install: string): boolean {
  if (available) return true;
  if (process.env.CI) throw new Error(`${name} is required in CI: apt-get install ${install} (.ci/run does this)`);
  console.warn(`skipping the ${name} tests: not installed (apt-get install ${install})`);
  return false;
}

export function runs(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

export const hasChromium = () => required('Chromium', existsSync('/usr/bin/chromium'), 'chromium');
export const hasPhpSoap = () => required('PHP SoapClient', runs('php', ['-r', 'exit(class_exists("SoapClient") ? 0 : 1);']), 'php-cli php-soap');
export const hasZeep = () => required('python zeep', runs('/usr/bin/python3', ['-c', 'import zeep']), 'python3-zeep');
