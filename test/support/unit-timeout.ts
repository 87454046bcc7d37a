// Unit specs are fast alone, but property-based ones and those that start a local HTTP fake can
// outlast jest's 5 s default on a machine running every tier at once (the CI run).
jest.setTimeout(20_000);
