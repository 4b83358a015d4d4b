// An in-memory USDC (EIP-3009) ledger on "Base", exposed as the exact-EVM facilitator's signer: the only simulated part of the dev/test payment chain.
// It must never stand in for real money: it mints test USDC on request and holds no private key (transactions are applied, never signed).
import {
  decodeFunctionData,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  encodeFunctionResult,
  getAddress,
  isAddressEqual,
  keccak256,
  parseAbi,
  recoverTypedDataAddress,
  serializeSignature,
  toHex,
  verifyTypedData,
  type Abi,
  type Address,
  type Hex,
  type Log,
} from "viem";
import { authorizationTypes, eip3009ABI, type FacilitatorEvmSigner } from "@x402/evm";

/** USDC on Base mainnet (eip155:8453), the one token this ledger holds. */
export const BASE_USDC: Address = getAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");

// FiatTokenV2's EIP-712 domain on Base; a signature made for any other domain must fail, as on mainnet.
const USDC_DOMAIN = { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: BASE_USDC } as const;
// Multicall3 sits at this address on every chain; the facilitator diagnoses failed simulations through its tryAggregate.
const MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
const MULTICALL3_ABI = parseAbi([
  "function tryAggregate(bool requireSuccess, (address target, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)",
]);
const TRANSFER_EVENT = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]);
// Any non-empty bytecode: the facilitator only asks whether the asset is a contract and whether the payer is not.
const CONTRACT_CODE: Hex = "0x6080604052";
// The gas-paying account the facilitator advertises in /supported; nothing here signs with it.
const FACILITATOR_ADDRESS: Address = getAddress("0x00000000000000000000000000000000000fac11");

/** Options of the ledger: `autoCreditAtomic` credits that much test USDC to a payer the ledger has never held a balance for (dev mode). */
export type LedgerOptions = { autoCreditAtomic?: bigint };

/** The facilitator's view of the chain plus the levers tests and dev mode need. */
export type UsdcLedger = FacilitatorEvmSigner & {
  /** Adds `atomic` units of test USDC (6 decimals) to `address`; a funded address is never auto-credited. */
  fund(address: Address, atomic: bigint): void;
  /** Current balance of `address`, in atomic units. */
  balanceOf(address: Address): bigint;
};

type Receipt = { status: "success" | "reverted"; logs: Log[] };

/** Creates an empty ledger; balances, used nonces and receipts live only in this object. */
export function createUsdcLedger(options: LedgerOptions = {}): UsdcLedger {
  const balances = new Map<Address, bigint>();
  const usedNonces = new Set<string>(); // `${authorizer}:${nonce}`, FiatTokenV2's _authorizationStates
  const receipts = new Map<Hex, Receipt>();
  let txCount = 0;

  const balanceOf = (address: Address): bigint => balances.get(getAddress(address)) ?? 0n;
  const credit = (address: Address, atomic: bigint) => balances.set(getAddress(address), balanceOf(address) + atomic);
  const nonceKey = (authorizer: Address, nonce: Hex) => `${getAddress(authorizer)}:${nonce.toLowerCase()}`;

  // FiatTokenV2_2._transferWithAuthorization, checked in the contract's order and reverting with its strings,
  // so the facilitator's error mapping (parseEip3009TransferError) sees what mainnet would tell it. A transaction
  // runs atomically: the signer is recovered first (the one await), then every check and the nonce's marking happen
  // with nothing in between, so two settlements of one authorization can never both pass the nonce check.
  async function transferWithAuthorization(args: TransferArgs, logs?: Log[]): Promise<void> {
    const [from, to, value, validAfter, validBefore, nonce] = args;
    const signer = await recoverTypedDataAddress({
      domain: USDC_DOMAIN,
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: { from, to, value, validAfter, validBefore, nonce },
      signature: signatureOf(args),
    }).catch(() => undefined);
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (now <= validAfter) revert("FiatTokenV2: authorization is not yet valid");
    if (now >= validBefore) revert("FiatTokenV2: authorization is expired");
    if (usedNonces.has(nonceKey(from, nonce))) revert("FiatTokenV2: authorization is used or canceled");
    if (!signer || !isAddressEqual(signer, from)) revert("FiatTokenV2: invalid signature");
    if (!balances.has(getAddress(from)) && options.autoCreditAtomic !== undefined) credit(from, options.autoCreditAtomic);
    if (balanceOf(from) < value) revert("ERC20: transfer amount exceeds balance");
    if (!logs) return; // eth_call: the simulation stops before state changes
    usedNonces.add(nonceKey(from, nonce));
    credit(from, -value); // a debit: the balance check above keeps it non-negative
    credit(to, value);
    logs.push(transferLog(from, to, value, logs.length));
  }

  // One contract call by calldata, as the EVM sees it; `logs` present means "in a transaction", absent means eth_call.
  async function execute(target: Address, data: Hex, logs?: Log[]): Promise<Hex> {
    if (isAddressEqual(target, MULTICALL3)) {
      const { args } = decodeFunctionData({ abi: MULTICALL3_ABI, data }); // requireSuccess is always false from the facilitator
      const results = [];
      for (const call of args[1]) {
        const returnData = await execute(call.target, call.callData).catch(() => undefined);
        results.push({ success: returnData !== undefined, returnData: returnData ?? "0x" });
      }
      return encodeFunctionResult({ abi: MULTICALL3_ABI, functionName: "tryAggregate", result: results });
    }
    if (!isAddressEqual(target, BASE_USDC)) revert(`no contract at ${target}`);
    const call = decodeFunctionData({ abi: eip3009ABI, data }); // throws on any function USDC's EIP-3009 ABI lacks
    const result = (value: unknown) => encodeFunctionResult({ abi: eip3009ABI, functionName: call.functionName, result: value } as never);
    switch (call.functionName) {
      case "balanceOf": return result(balanceOf(call.args[0]));
      case "name": return result(USDC_DOMAIN.name);
      case "version": return result(USDC_DOMAIN.version);
      case "authorizationState": return result(usedNonces.has(nonceKey(...call.args)));
      case "transferWithAuthorization": return transferWithAuthorization(call.args, logs).then(() => "0x");
    }
  }

  async function readContract(call: ContractCall): Promise<unknown> {
    const returnData = await execute(call.address, calldata(call));
    return decodeFunctionResultOf(call, returnData);
  }

  // A real writeContract throws when gas estimation reverts, so a failing transfer throws here too.
  async function writeContract(call: ContractCall): Promise<Hex> {
    const hash = keccak256(toHex(`ledger-tx-${++txCount}`));
    const logs: Log[] = [];
    await execute(call.address, calldata(call), logs);
    receipts.set(hash, { status: "success", logs: logs.map((log) => ({ ...log, transactionHash: hash })) });
    return hash;
  }

  return {
    getAddresses: () => [FACILITATOR_ADDRESS],
    readContract,
    writeContract,
    // Only ERC-6492 smart-wallet deployment sends raw transactions; test payers are EOAs.
    sendTransaction: async () => revert("sendTransaction is not supported by the test ledger"),
    waitForTransactionReceipt: async ({ hash }) => receipts.get(hash) ?? revert(`Transaction receipt with hash "${hash}" could not be found.`),
    getCode: async ({ address }) => ([BASE_USDC, MULTICALL3].some((a) => isAddressEqual(a, address)) ? CONTRACT_CODE : "0x"),
    verifyTypedData: (args) => verifyTypedData(args as Parameters<typeof verifyTypedData>[0]),
    fund: credit,
    balanceOf,
  };
}

type ContractCall = { address: Address; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] };
// transferWithAuthorization has two overloads: (…, uint8 v, bytes32 r, bytes32 s) for EOAs and (…, bytes signature).
type TransferArgs =
  | readonly [Address, Address, bigint, bigint, bigint, Hex, number, Hex, Hex]
  | readonly [Address, Address, bigint, bigint, bigint, Hex, Hex];

function signatureOf(args: TransferArgs): Hex {
  return args.length === 7 ? args[6] : serializeSignature({ v: BigInt(args[6]), r: args[7], s: args[8] });
}

function calldata(call: ContractCall): Hex {
  return encodeFunctionData({ abi: call.abi as Abi, functionName: call.functionName, args: call.args ?? [] });
}

function decodeFunctionResultOf(call: ContractCall, data: Hex): unknown {
  if (data === "0x") return undefined; // transferWithAuthorization returns nothing
  return decodeFunctionResult({ abi: call.abi as Abi, functionName: call.functionName, data });
}

function transferLog(from: Address, to: Address, value: bigint, logIndex: number): Log {
  return {
    address: BASE_USDC,
    topics: encodeEventTopics({ abi: TRANSFER_EVENT, eventName: "Transfer", args: { from, to } }) as Log["topics"],
    data: encodeAbiParameters([{ type: "uint256" }], [value]),
    blockHash: null,
    blockNumber: null,
    logIndex,
    transactionHash: null,
    transactionIndex: null,
    removed: false,
  };
}

// Reverts read like an EVM revert reason, which is what the facilitator pattern-matches.
function revert(reason: string): never {
  throw new Error(`execution reverted: ${reason}`);
}
