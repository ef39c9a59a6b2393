// Types of node-version.js, which stays plain JavaScript so that an older Node can run it.
export declare const REQUIRED_NODE_MAJOR: number;
export declare function oldNodeMessage(version?: string): string | undefined;
export declare function refuseOldNode(): void;
