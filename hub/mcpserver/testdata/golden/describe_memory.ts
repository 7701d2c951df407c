interface CallOptions {
	/** Connection name; default connection when omitted. */
	connection?: string;
}

declare const memory: {
	/** Add new observations to existing entities in the knowledge graph */
	addObservations(input: {
		observations: {
			/** The name of the entity to add the observations to */
			entityName: string;
			/** An array of observation contents to add */
			contents: string[];
		}[];
	}, options?: CallOptions): Promise<memory.AddObservationsResult>;
	/** Create multiple new entities in the knowledge graph */
	createEntities(input: {
		entities: {
			/** The name of the entity */
			name: string;
			/** The type of the entity */
			entityType: string;
			/** An array of observation contents associated with the entity */
			observations: string[];
		}[];
	}, options?: CallOptions): Promise<memory.CreateEntitiesResult>;
	/** Create multiple new relations between entities in the knowledge graph. Relations should be in active voice */
	createRelations(input: {
		relations: {
			/** The name of the entity where the relation starts */
			from: string;
			/** The name of the entity where the relation ends */
			to: string;
			/** The type of the relation */
			relationType: string;
		}[];
	}, options?: CallOptions): Promise<memory.CreateRelationsResult>;
	/** Delete multiple entities and their associated relations from the knowledge graph */
	deleteEntities(input: {
		/** An array of entity names to delete */
		entityNames: string[];
	}, options?: CallOptions): Promise<memory.DeleteEntitiesResult>;
	/** Delete specific observations from entities in the knowledge graph */
	deleteObservations(input: {
		deletions: {
			/** The name of the entity containing the observations */
			entityName: string;
			/** An array of observations to delete */
			observations: string[];
		}[];
	}, options?: CallOptions): Promise<memory.DeleteObservationsResult>;
	/** Delete multiple relations from the knowledge graph */
	deleteRelations(input: {
		/** An array of relations to delete */
		relations: {
			/** The name of the entity where the relation starts */
			from: string;
			/** The name of the entity where the relation ends */
			to: string;
			/** The type of the relation */
			relationType: string;
		}[];
	}, options?: CallOptions): Promise<memory.DeleteRelationsResult>;
	/** Open specific nodes in the knowledge graph by their names */
	openNodes(input: {
		/** An array of entity names to retrieve */
		names: string[];
	}, options?: CallOptions): Promise<memory.OpenNodesResult>;
	/** Read the entire knowledge graph */
	readGraph(input?: {}, options?: CallOptions): Promise<memory.ReadGraphResult>;
	/** Search for nodes in the knowledge graph based on a query */
	searchNodes(input: {
		/** The search query to match against entity names, types, and observation content */
		query: string;
	}, options?: CallOptions): Promise<memory.SearchNodesResult>;
};

declare namespace memory {
	interface AddObservationsResult {
		results: {
			entityName: string;
			addedObservations: string[];
		}[];
	}
	interface CreateEntitiesResult {
		entities: {
			/** The name of the entity */
			name: string;
			/** The type of the entity */
			entityType: string;
			/** An array of observation contents associated with the entity */
			observations: string[];
		}[];
	}
	interface CreateRelationsResult {
		relations: {
			/** The name of the entity where the relation starts */
			from: string;
			/** The name of the entity where the relation ends */
			to: string;
			/** The type of the relation */
			relationType: string;
		}[];
	}
	interface DeleteEntitiesResult {
		success: boolean;
		message: string;
	}
	interface DeleteObservationsResult {
		success: boolean;
		message: string;
	}
	interface DeleteRelationsResult {
		success: boolean;
		message: string;
	}
	interface OpenNodesResult {
		entities: {
			/** The name of the entity */
			name: string;
			/** The type of the entity */
			entityType: string;
			/** An array of observation contents associated with the entity */
			observations: string[];
		}[];
		relations: {
			/** The name of the entity where the relation starts */
			from: string;
			/** The name of the entity where the relation ends */
			to: string;
			/** The type of the relation */
			relationType: string;
		}[];
	}
	interface ReadGraphResult {
		entities: {
			/** The name of the entity */
			name: string;
			/** The type of the entity */
			entityType: string;
			/** An array of observation contents associated with the entity */
			observations: string[];
		}[];
		relations: {
			/** The name of the entity where the relation starts */
			from: string;
			/** The name of the entity where the relation ends */
			to: string;
			/** The type of the relation */
			relationType: string;
		}[];
	}
	interface SearchNodesResult {
		entities: {
			/** The name of the entity */
			name: string;
			/** The type of the entity */
			entityType: string;
			/** An array of observation contents associated with the entity */
			observations: string[];
		}[];
		relations: {
			/** The name of the entity where the relation starts */
			from: string;
			/** The name of the entity where the relation ends */
			to: string;
			/** The type of the relation */
			relationType: string;
		}[];
	}
}

