package mcp

// FixtureServer is fixtureServer, for the tests of package mcp_test.
var FixtureServer = fixtureServer

// FixtureTools is fixtureTools, for the tests of package mcp_test.
var FixtureTools = fixtureTools
