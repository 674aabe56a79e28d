// The compiled addon (src/*.rs), loaded by the loader napi generates (../native.js) for this
// platform's `chwire.<platform>.node`.

import type * as Native from '../native';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const addon: typeof Native = require('../native.js');

export type NativeClient = Native.NativeClient;
export type NativeStream = Native.NativeStream;
export type NativeInsert = Native.NativeInsert;
export const connect = addon.connect;
export const createPool = addon.createPool;
export const version = addon.version;
export const durationKey = addon.durationKey;
export const nonFlagKey = addon.nonFlagKey;
export const insertOptions = addon.insertOptions;
export const releaseBuffers = addon.releaseBuffers;
export const registerClasses = addon.registerClasses;
