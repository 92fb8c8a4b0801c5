// Package axe runs axe-core, the accessibility rules engine, inside pages
// opened by chromedp browser tests and reports WCAG 2.0/2.1 level A and AA
// violations. axe-core is vendored as test data (testdata/axe.min.js, see
// vendor.sh and testdata/VERSIONS): the product never serves it and nothing
// is fetched at test time. Only test code imports this package.
package axe
