import type { components } from './schema';

type S = components['schemas'];

export type VCenter = S['VCenterOut'];
export type VCenterCreate = S['VCenterCreate'];
export type Certificate = S['CertificateInfo'];
export type Inventory = S['Inventory'];
export type About = S['About'];
export type Datacenter = S['Datacenter'];
export type Cluster = S['Cluster'];
export type Host = S['Host'];
export type Datastore = S['Datastore'];
export type Network = S['Network'];
export type VirtualMachine = S['VirtualMachine'];
export type Snapshot = S['Snapshot'];
export type TestResult = S['TestResult'];
