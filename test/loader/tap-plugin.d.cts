// tap compiles its test class against its plugins' types when it builds the plugin set.
export declare const testFileExtensions: string[];
export declare const importLoader: string;
