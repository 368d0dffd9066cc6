/**
 * Which repository paths hold tests, specs or test data. One rule for every
 * ranking that demotes tests (search results, code-context candidates): a
 * bounded demotion, never a filter.
 */

const TEST_PATH =
  /(^|\/)(tests?|__tests__|spec|specs|testing|testdata|test_?utils?)(\/|$)|(^|\/)test_[^/]*\.py$|_test\.[a-z]+$|[._-](test|spec)s?\.[a-z]+$/i;
/** `FooTest.java`, `BarTests.cs`: case matters, or `latest.go` would be a test. */
const TEST_CLASS_FILE = /[a-z0-9]Tests?\.(java|kt|cs|scala|swift|groovy|php)$/;

/** True for paths of tests, specs and test data (`tests/`, `foo_test.go`, `bar.spec.ts`, `FooTest.java`). */
export function isTestPath(path: string): boolean {
  return TEST_PATH.test(path) || TEST_CLASS_FILE.test(path);
}
