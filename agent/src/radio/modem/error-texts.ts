// Readable meanings of the error numbers modems give with +CMS ERROR (SMS commands) and +CME ERROR
// (everything else), for the codes seen in practice. The network's causes (below 128) reach the
// modem from the service centre; 300 and up are the modem's own.

const CMS_ERRORS: ReadonlyMap<number, string> = new Map([
  [1, 'unassigned number'],
  [8, 'operator determined barring'],
  [10, 'call barred'],
  [21, 'short message transfer rejected'],
  [27, 'destination out of service'],
  [28, 'unidentified subscriber'],
  [29, 'facility rejected'],
  [30, 'unknown subscriber'],
  [38, 'network out of order'],
  [41, 'temporary failure'],
  [42, 'congestion'],
  [47, 'resources unavailable'],
  [50, 'requested facility not subscribed'],
  [69, 'requested facility not implemented'],
  [81, 'invalid short message transfer reference value'],
  [95, 'invalid message'],
  [96, 'invalid mandatory information'],
  [97, 'message type non-existent or not implemented'],
  [98, 'message not compatible with short message protocol state'],
  [99, 'information element non-existent or not implemented'],
  [111, 'protocol error'],
  [127, 'interworking unspecified'],
  [300, 'modem failure'],
  [301, 'SMS service of the modem reserved'],
  [302, 'operation not allowed'],
  [303, 'operation not supported'],
  [304, 'invalid PDU mode parameter'],
  [305, 'invalid text mode parameter'],
  [310, 'SIM not inserted'],
  [311, 'SIM PIN required'],
  [312, 'PH-SIM PIN required'],
  [313, 'SIM failure'],
  [314, 'SIM busy'],
  [315, 'SIM wrong'],
  [316, 'SIM PUK required'],
  [317, 'SIM PIN2 required'],
  [318, 'SIM PUK2 required'],
  [320, 'memory failure'],
  [321, 'invalid memory index'],
  [322, 'memory full'],
  [330, 'SMSC address unknown'],
  [331, 'no network service'],
  [332, 'network timeout'],
  [340, 'no +CNMA acknowledgement expected'],
  [500, 'unknown error'],
]);

const CME_ERRORS: ReadonlyMap<number, string> = new Map([
  [0, 'phone failure'],
  [3, 'operation not allowed'],
  [4, 'operation not supported'],
  [10, 'SIM not inserted'],
  [11, 'SIM PIN required'],
  [12, 'SIM PUK required'],
  [13, 'SIM failure'],
  [14, 'SIM busy'],
  [15, 'SIM wrong'],
  [16, 'incorrect password'],
  [17, 'SIM PIN2 required'],
  [18, 'SIM PUK2 required'],
  [20, 'memory full'],
  [21, 'invalid index'],
  [22, 'not found'],
  [30, 'no network service'],
  [31, 'network timeout'],
  [100, 'unknown'],
]);

export function cmsErrorText(code: number): string {
  return CMS_ERRORS.get(code) ?? 'unknown error';
}

export function cmeErrorText(code: number): string {
  return CME_ERRORS.get(code) ?? 'unknown error';
}
