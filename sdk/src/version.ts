/** The version of this package, sent in the User-Agent of every call; a test keeps it equal to package.json's. */
export const SDK_VERSION = '0.1.0';
